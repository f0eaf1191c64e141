// What the RFQ rules read and return (spec/openapi.yaml, spec/asyncapi.yaml): an RFQ, its quotes, and the frames that
// market makers receive (plain JSON objects shaped as the messages of spec/asyncapi.yaml; the stream
// module sends them as they are). Amounts are bigint here and decimal strings on the wire.
import { bestFirst } from './allocate.js';
import type { Direction, OrderType, RfqOrderJson } from './typed-data.js';
import type { FillMode } from './validate.js';
import type {
  MmpStatusMessage,
  PositionSettledMessage,
  QuoteResultMessage,
  RfqClosedMessage,
  RfqMessage,
} from '../../../generated/asyncapi/types.js';

export type RfqStatus = 'open' | 'filled' | 'expired' | 'cancelled';
export type CloseReason = 'no_quotes' | 'below_min_odds' | 'insufficient_liquidity' | 'deadline' | 'betting_closed' | 'cancelled';
export type QuoteStatus = 'live' | 'filled' | 'not_filled' | 'rejected' | 'replaced' | 'cancelled';
export type QuoteReason =
  | 'outbid'
  | 'below_min_odds'
  | 'quote_expired'
  | 'replaced'
  | 'rfq_cancelled'
  | 'rfq_expired'
  | 'betting_closed'
  | 'invalid_signature'
  | 'insufficient_collateral'
  | 'payout_exceeds_maximum';

/** A leg as makers see it: the signed (market_id, direction) with its window. */
export interface RfqLegInfo {
  market_id: number;
  asset: string;
  duration_secs: number;
  window_start_ms: number;
  betting_closes_at_ms: number;
  direction: Direction;
}

export interface RfqRecord {
  id: string;
  takerUserId: string;
  /** The signed order's taker, lowercase. */
  takerAddress: string;
  /** The order exactly as signed (JSON integers). */
  order: RfqOrderJson;
  signature: string;
  fillMode: FillMode;
  orderType: OrderType;
  status: RfqStatus;
  stakeMicros: bigint;
  minOddsBps: number;
  /** Filled part of the stake (0 until filled). */
  filledStakeMicros: bigint;
  /** Gross payout of the position if the taker wins; null unless filled. */
  payoutMicros: bigint | null;
  /** Effective odds floor(payout * 10000 / filled); null unless filled. */
  oddsBps: number | null;
  positionId: string | null;
  closeReason: CloseReason | null;
  /** Quotes recorded for this RFQ (every status, replaced ones included). */
  quotesReceived: number;
  quoteDeadlineMs: number;
  expiresAtMs: number;
  createdAtMs: number;
  closedAtMs: number | null;
  legs: RfqLegInfo[];
  idempotencyKey: string | null;
}

export interface QuoteRecord {
  id: string;
  rfqId: string;
  /** Lowercase. */
  makerAddress: string;
  makerUserId: string | null;
  clientQuoteId: string | null;
  oddsBps: number;
  maxFillMicros: bigint;
  validUntilMs: number;
  signature: string;
  status: QuoteStatus;
  reason: QuoteReason | null;
  filledStakeMicros: bigint;
  receivedAtMs: number;
}

/** An RFQ and its quotes, best first (odds desc, then earliest). */
export interface RfqWithQuotes {
  rfq: RfqRecord;
  quotes: QuoteRecord[];
}

// The frames are the generated message types of spec/asyncapi.yaml (generated/asyncapi/types.ts), as HTTP
// bodies are the generated OpenAPI types: a field renamed in the spec fails `tsc` in the builder below
// (scripts/drift-probe.ts proves it). The names below are the domain's names for them.

/** The `rfq` frame (min_odds_bps is never sent to makers). */
export type RfqFrame = RfqMessage;
/** The `rfq_closed` frame: to the audience of the RFQ's `rfq` frame. */
export type RfqClosedFrame = RfqClosedMessage;
/** The `quote_result` frame; built only by quoteResultFrame (below). */
export type QuoteResultFrame = QuoteResultMessage;
/** A maker's market-maker protection (src/domain/rfq/mmp.ts): its answer to mmp_set/mmp_reset, and its trip. */
export type MmpStatusFrame = MmpStatusMessage;
/** To every connection of each maker of a position when it settles (taker-relative outcome). */
export type PositionSettledFrame = PositionSettledMessage;

export function rfqFrame(r: RfqRecord): RfqFrame {
  return {
    type: 'rfq',
    rfq_id: r.id,
    created_at_ms: r.createdAtMs,
    quote_deadline_ms: r.quoteDeadlineMs,
    expires_at_ms: r.expiresAtMs,
    fill_mode: r.fillMode,
    order_type: r.orderType,
    stake_micros: r.stakeMicros.toString(),
    taker_address: r.takerAddress,
    legs: r.legs,
  };
}

export function rfqClosedFrame(r: RfqRecord): RfqClosedFrame {
  if (r.status === 'open' || r.closedAtMs === null) throw new Error(`rfq ${r.id} is still open`);
  return { type: 'rfq_closed', rfq_id: r.id, status: r.status, closed_at_ms: r.closedAtMs };
}

/** The `position_settled` frame of one maker's fill: its PnL (taker-relative outcome). */
export function positionSettledFrame(p: {
  positionId: string;
  rfqId: string;
  outcome: PositionSettledFrame['outcome'];
  makerPnl: bigint;
  settledAtMs: number;
}): PositionSettledFrame {
  return {
    type: 'position_settled',
    position_id: p.positionId,
    rfq_id: p.rfqId,
    outcome: p.outcome,
    maker_pnl_micros: p.makerPnl.toString(),
    settled_at_ms: p.settledAtMs,
  };
}

/** The quote a `quote_result` is about. */
export interface QuoteResultSubject {
  rfqId: string;
  quoteId: string;
  clientQuoteId: string | null;
  oddsBps: number;
}

/** How the quote ended: filled (its part of the position), or not, with the reason. */
export type QuoteResultOutcome =
  | { status: 'filled'; positionId: string | null; fillMicros: bigint; liabilityMicros: bigint; filledAtMs: number }
  | { status: Exclude<QuoteResultFrame['status'], 'filled'>; reason: NonNullable<QuoteResultFrame['reason']> };

/**
 * The one builder of the `quote_result` frame (a fill, a close without this quote, a replacement, a
 * rejection, a withdrawal): the amounts are "0" and position_id, filled_at_ms null unless filled.
 */
export function quoteResultFrame(q: QuoteResultSubject, o: QuoteResultOutcome): QuoteResultFrame {
  const filled = o.status === 'filled' ? o : null;
  return {
    type: 'quote_result',
    rfq_id: q.rfqId,
    quote_id: q.quoteId,
    client_quote_id: q.clientQuoteId,
    status: o.status,
    reason: o.status === 'filled' ? null : o.reason,
    position_id: filled ? filled.positionId : null,
    fill_stake_micros: (filled?.fillMicros ?? 0n).toString(),
    odds_bps: q.oddsBps,
    liability_micros: (filled?.liabilityMicros ?? 0n).toString(),
    filled_at_ms: filled ? filled.filledAtMs : null,
  };
}

/** Best first (allocate.ts bestFirst). */
export const compareQuoteRecords = bestFirst<QuoteRecord>((q) => q.id);

/** A copy of `quotes`, best first (compareQuoteRecords). */
export const sortedBestFirst = (quotes: readonly QuoteRecord[]): QuoteRecord[] => [...quotes].sort(compareQuoteRecords);
