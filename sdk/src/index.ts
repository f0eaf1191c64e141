// @contest-rfq/sdk: the contest-rfq-service client, generated from spec/openapi.yaml and spec/asyncapi.yaml.
// The HTTP operations and schema types are hey-api's output (generated/sdk); named exports below win over
// a generated name they share.
export * from './http.ts';
export { fetchTypedData, orderToTypedMessage, orderTypedData, signOrder, submitRfq } from './taker.ts';
export { HistoryRequestError, operationsHistory, statement } from './history.ts';
export type { Direction, OrderType, RfqOrderJson, RfqOrderMessage, SubmitRfqOptions } from './taker.ts';
export { authMessageBytes, DEFAULT_AUTH_DOMAIN, signAuthChallenge } from './ws/auth.ts';
export { DEFAULT_RFQ_DOMAIN, QUOTE_TYPES, quoteToTypedMessage, quoteTypedData, signingDomain, signQuote } from './maker.ts';
export type { QuoteJson, QuoteMessage, RfqSigningDomain } from './maker.ts';
export { isHeldForReview, withdrawalRefusal } from './withdrawals.ts';
export type { DestinationRule, WithdrawalRefusal } from './withdrawals.ts';
export { UserClient } from './ws/user-client.ts';
export type { UserClientEvents, UserClientOptions } from './ws/user-client.ts';
export { MarketMakerClient } from './ws/client.ts';
export { CLOSE_CODES, MarketMakerGoneError, MarketMakerRequestError } from './ws/types.ts';
export type {
  MarketMakerClientEvents,
  MarketMakerClientOptions,
  MarketMakerSession,
  MessageOf,
  MmpLimits,
  QuoteRequest,
  SubscribeFilters,
} from './ws/types.ts';
// Every message of the AsyncAPI document, as `WsMessages.PingMessage`...; the two unions by name.
export type * as WsMessages from '../../generated/asyncapi/types.ts';
export type { ClientMessage, ServerMessage } from '../../generated/asyncapi/types.ts';
