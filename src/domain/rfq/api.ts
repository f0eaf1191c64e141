// The RFQ rules in one import for the HTTP handlers, the WebSocket stream and the sweeper.
export { checkOrderSignature, createRfq, type CreateRfqInput, type RfqWrite } from './create.js';
export { getOwnRfq, listOwnRfqs, getMakerRfq, makerLiveQuotes, dueRfqIds, loadRfq, type RfqListQuery } from './queries.js';
export { closeRfq, acceptQuote, cancelRfq, rejectQuote, QuoteUnusable } from './close.js';
export { submitQuote, cancelQuote, quoteAck, type QuoteAck, type QuoteAckError, type QuoteInput } from './quotes.js';
export { withdrawAllQuotes } from './withdraw.js';
