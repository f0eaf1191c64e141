// What the RFQ rules read and return (spec/openapi.yaml, spec/asyncapi.yaml): an RFQ, its quotes, and the frames that
// market makers receive (plain JSON objects shaped as the messages of spec/asyncapi.yaml; the stream
// module sends them as they are). Amounts are bigint here and decimal strings on the wire.
import { bestFirst } from './allocate.js';
import type { Direction, OrderType, RfqOrderJson } from './typed-data.js';
import type { SettledOutcome } from '../../db/vocabulary.js';
import type { FillMode } from './validate.js';

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

/** The `rfq` frame of spec/asyncapi.yaml (min_odds_bps is never sent to makers). */
export interface RfqFrame {
  type: 'rfq';
  rfq_id: string;
  created_at_ms: number;
  quote_deadline_ms: number;
  expires_at_ms: number;
  fill_mode: FillMode;
  order_type: OrderType;
  stake_micros: string;
  taker_address: string;
  legs: RfqLegInfo[];
}

export interface RfqClosedFrame {
  type: 'rfq_closed';
  rfq_id: string;
  status: Exclude<RfqStatus, 'open'>;
  closed_at_ms: number;
}

export interface QuoteResultFrame {
  type: 'quote_result';
  rfq_id: string;
  quote_id: string;
  client_quote_id: string | null;
  /** `cancelled`: withdrawn by the service for the maker (cancel on disconnect: reason `disconnected`). */
  status: 'filled' | 'not_filled' | 'rejected' | 'cancelled';
  reason: QuoteReason | 'disconnected' | 'mmp_triggered' | null;
  position_id: string | null;
  fill_stake_micros: string;
  odds_bps: number;
  liability_micros: string;
  filled_at_ms: number | null;
}

/** A maker's market-maker protection (src/domain/rfq/mmp.ts): its answer to mmp_set/mmp_reset, and its trip. */
export interface MmpStatusFrame {
  type: 'mmp_status';
  enabled: boolean;
  interval_ms: number | null;
  max_fills: number | null;
  max_liability_micros: string | null;
  window_fills: number;
  window_liability_micros: string;
  tripped_at_ms: number | null;
}

/** To every connection of each maker of a position when it settles (taker-relative outcome). */
export interface PositionSettledFrame {
  type: 'position_settled';
  position_id: string;
  rfq_id: string;
  outcome: SettledOutcome;
  maker_pnl_micros: string;
  settled_at_ms: number;
}

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

/** Best first (allocate.ts bestFirst). */
export const compareQuoteRecords = bestFirst<QuoteRecord>((q) => q.id);
