// The RFQ rules in one import for the HTTP handlers, the WebSocket stream and the sweeper.
export { createRfq, type RfqWrite } from './create.js';
export { getOwnRfq, listOwnRfqs, getMakerRfq, dueRfqIds, loadRfq } from './queries.js';
export { closeRfq, acceptQuote, cancelRfq, rejectQuote, QuoteUnusable } from './close.js';
export { submitQuote, cancelQuote } from './quotes.js';
