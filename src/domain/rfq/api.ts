// INTERFACE STUBS (replaced by the real rules in create/queries/close/accept/cancel/quotes/sweep.ts):
// the signatures the HTTP handlers, the WebSocket stream and the sweeper code against.
import type { Em } from '../../db/orm.js';
import type { RfqDeps } from './deps.js';
import type { RfqEvent } from './events.js';
import type { RfqStatus, RfqWithQuotes } from './records.js';
import type { RfqOrderJson } from './typed-data.js';
import type { FillMode } from './validate.js';

const todo = (name: string): never => {
  throw new Error(`${name}: not implemented yet`);
};

export interface CreateRfqInput {
  userId: string;
  /** The session's wallet (lowercase or checksummed): order.taker must equal it (422 TAKER_MISMATCH). */
  sessionAddress: string;
  order: RfqOrderJson;
  signature: string;
  fillMode: FillMode;
  idempotencyKey: string;
}

export interface RfqWrite {
  rfq: RfqWithQuotes;
  /** Publish after commit (src/bus/rfq-events.ts). */
  events: RfqEvent[];
}

/**
 * Inside the caller's transaction (the idempotency key's): checks in the order of rfq-design 3.12 (free
 * checks, market lookups, signature, then writes), records the RFQ and reserves the stake. Throws the
 * AppErrors of 3.12. A retry whose nonce is taken by the same key and order returns that RFQ.
 */
export async function createRfq(_tx: Em, _deps: RfqDeps, _input: CreateRfqInput): Promise<RfqWrite> {
  return todo('createRfq');
}

/** 404 RFQ_NOT_FOUND when missing or not the user's. */
export async function getOwnRfq(_em: Em, _userId: string, _rfqId: string): Promise<RfqWithQuotes> {
  return todo('getOwnRfq');
}

export interface RfqListQuery {
  status?: RfqStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first, keyset; the cursor is signed like the lobby's (400 INVALID_CURSOR otherwise). */
export async function listOwnRfqs(_em: Em, _userId: string, _q: RfqListQuery): Promise<{ rfqs: RfqWithQuotes[]; nextCursor: string | null }> {
  return todo('listOwnRfqs');
}

/** Any RFQ by id for an authenticated maker, with that maker's own quotes only; 404 RFQ_NOT_FOUND. */
export async function getMakerRfq(_em: Em, _makerWallet: string, _rfqId: string): Promise<RfqWithQuotes> {
  return todo('getMakerRfq');
}

/**
 * Its own transaction. Closes the RFQ if it is due (best: quote deadline reached -> fill or expire; manual:
 * expires_at reached -> expired deadline; any: a leg's betting close passed -> expired betting_closed);
 * otherwise changes nothing. Idempotent under the row lock (timer and sweeper race safely).
 */
export async function closeRfq(_em: Em, _deps: RfqDeps, _rfqId: string): Promise<RfqWrite & { changed: boolean }> {
  return todo('closeRfq');
}

/** Manual mode, inside the caller's transaction: fills the RFQ with one live quote (3.6). */
export async function acceptQuote(_tx: Em, _deps: RfqDeps, _userId: string, _rfqId: string, _quoteId: string): Promise<RfqWrite> {
  return todo('acceptQuote');
}

/** Its own transaction; 409 RFQ_NOT_OPEN after close, except a repeat cancel which returns the cancelled RFQ. */
export async function cancelRfq(_em: Em, _deps: RfqDeps, _userId: string, _rfqId: string): Promise<RfqWrite> {
  return todo('cancelRfq');
}

export type QuoteAckError =
  | 'unknown_rfq'
  | 'rfq_closed'
  | 'invalid_odds'
  | 'quote_expired'
  | 'self_trade'
  | 'insufficient_collateral'
  | 'duplicate_client_quote_id'
  | 'quote_not_live'
  | 'rate_limited';

export interface QuoteAck {
  type: 'quote_ack';
  rfq_id: string;
  quote_id: string | null;
  client_quote_id: string | null;
  accepted: boolean;
  error: QuoteAckError | null;
}

/** A `quote` frame's fields (validated against spec/asyncapi.yaml by the stream). */
export interface QuoteInput {
  rfq_id: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
  client_quote_id?: string | null | undefined;
  signature: string;
}

/** Records a firm quote of the authenticated maker (replacing its live one on that RFQ); never throws a rejection: the ack says it. */
export async function submitQuote(_em: Em, _deps: RfqDeps, _makerWallet: string, _q: QuoteInput): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  return todo('submitQuote');
}

/** Cancels the maker's live quote; ack error quote_not_live when it is not live. */
export async function cancelQuote(_em: Em, _makerWallet: string, _rfqId: string, _quoteId: string): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  return todo('cancelQuote');
}

/** Open RFQs due for closing at nowMs - graceMs (the sweeper closes each with closeRfq). */
export async function dueRfqIds(_em: Em, _nowMs: number, _graceMs: number, _limit: number): Promise<string[]> {
  return todo('dueRfqIds');
}
