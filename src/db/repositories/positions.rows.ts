// The positions repository's row shapes (src/db/repositories/positions.repository.ts): the columns it reads,
// with int8 columns parsed (amounts as bigint micros, ids and times as numbers).
import { int8ToBigint, int8ToBigintOrNull, int8ToNumber, int8ToNumberOrNull } from '../int8.js';

export const POSITION_COLUMNS = [
  'id',
  'rfq_id',
  'taker_user_id',
  'taker_address',
  'stake',
  'payout',
  'odds_bps',
  'status',
  'pnl',
  'created_at_ms',
  'resolved_at_ms',
] as const;

/** A position row with its amounts as bigint micros and its times as epoch ms. */
export const parsePosition = <
  R extends { stake: string; payout: string; pnl: string | null; created_at_ms: string; resolved_at_ms: string | null },
>(
  r: R,
) => ({
  ...r,
  stake: int8ToBigint(r.stake),
  payout: int8ToBigint(r.payout),
  pnl: int8ToBigintOrNull(r.pnl),
  created_at_ms: int8ToNumber(r.created_at_ms),
  resolved_at_ms: int8ToNumberOrNull(r.resolved_at_ms),
});

/** A window row with its resolution and price check: prices as bigint micros, ids and times as numbers. */
export const parseWindow = <
  R extends {
    market_id: string;
    start_at_ms: string;
    open_price_micros: string | null;
    close_price_micros: string | null;
    resolved_at_ms: string | null;
    check_max_age_ms: string | null;
    checked_at_ms: string | null;
    void_at_ms: string | null;
  },
>(
  r: R,
) => ({
  ...r,
  market_id: int8ToNumber(r.market_id),
  start_at_ms: int8ToNumber(r.start_at_ms),
  open_price_micros: int8ToBigintOrNull(r.open_price_micros),
  close_price_micros: int8ToBigintOrNull(r.close_price_micros),
  resolved_at_ms: int8ToNumberOrNull(r.resolved_at_ms),
  check_max_age_ms: int8ToNumberOrNull(r.check_max_age_ms),
  checked_at_ms: int8ToNumberOrNull(r.checked_at_ms),
  void_at_ms: int8ToNumberOrNull(r.void_at_ms),
});

export interface StatsSettleDelta {
  owner: string;
  openCount: number;
  openStake: bigint;
  potentialPayout: bigint;
  settled: number;
  wins: number;
  losses: number;
  voided: number;
  pnl: bigint;
}

/** A position being settled, as settlementPlan (src/domain/positions/settlement-plan.ts) takes it. */
export interface SettlingPosition {
  id: string;
  rfqId: string;
  takerUserId: string;
  stake: bigint;
  payout: bigint;
  status: string;
  legs: Array<'pending' | 'won' | 'lost' | 'voided'>;
}

/** A maker's fill of a position being settled. */
export interface SettlingFill {
  id: string;
  positionId: string;
  makerAddress: string;
  makerUserId: string;
  stake: bigint;
  payout: bigint;
  liability: bigint;
}
