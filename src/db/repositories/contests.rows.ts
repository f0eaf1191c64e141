// The contests repository's row shapes (src/db/repositories/contests.repository.ts): the columns it reads,
// and the int8 columns parsed (amounts as bigint micros, ids and times as numbers) or bound (as int8 text).
import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../schema.js';
import { int8, int8ToBigint, int8ToNumber, int8ToNumberOrNull } from '../int8.js';

export const CONTEST_COLUMNS = [
  'id',
  'title',
  'category',
  'game_type',
  'description',
  'status',
  'bet_amount',
  'protocol_prize_pool',
  'entry_cap',
  'max_entries_per_user',
  'entries_filled',
  'open_market_count',
  'entry_opens_at_ms',
  'betting_closes_ms',
  'live_ends_at_ms',
  'bet_type_kind',
  'bet_type_value',
  'winning_split_bps',
  'image_id',
  'entry_visibility',
  'created_at_ms',
  'resolved_at_ms',
] as const satisfies ReadonlyArray<keyof DB['contests']>;

export const MARKET_COLUMNS = [
  'market_id',
  'contest_id',
  'position',
  'category',
  'name',
  'description',
  'status',
  'outcome',
  'source_kind',
  'source_event_id',
  'source_market_id',
  'betting_closes_at_ms',
  'live_ends_at_ms',
  'resolution_time_ms',
  'up_count',
  'down_count',
] as const satisfies ReadonlyArray<keyof DB['contest_markets']>;

type ContestDbRow = Pick<Selectable<DB['contests']>, (typeof CONTEST_COLUMNS)[number]>;
type ContestMarketDbRow = Pick<Selectable<DB['contest_markets']>, (typeof MARKET_COLUMNS)[number]>;

/** A contest row: amounts as bigint micros, times as epoch ms. */
export type ContestRow = ReturnType<typeof parseContest>;
/** A contest market row: its id and times as numbers. */
export type ContestMarketRow = ReturnType<typeof parseMarket>;

export const parseContest = (r: ContestDbRow) => ({
  ...r,
  bet_amount: int8ToBigint(r.bet_amount),
  protocol_prize_pool: int8ToBigint(r.protocol_prize_pool),
  entry_opens_at_ms: int8ToNumberOrNull(r.entry_opens_at_ms),
  betting_closes_ms: int8ToNumber(r.betting_closes_ms),
  live_ends_at_ms: int8ToNumberOrNull(r.live_ends_at_ms),
  created_at_ms: int8ToNumber(r.created_at_ms),
  resolved_at_ms: int8ToNumberOrNull(r.resolved_at_ms),
});

export const parseMarket = (r: ContestMarketDbRow) => ({
  ...r,
  market_id: int8ToNumber(r.market_id),
  betting_closes_at_ms: int8ToNumberOrNull(r.betting_closes_at_ms),
  live_ends_at_ms: int8ToNumberOrNull(r.live_ends_at_ms),
  resolution_time_ms: int8ToNumberOrNull(r.resolution_time_ms),
});

type Int8As<T, K extends keyof T, V> = Omit<T, K> & { [P in K]: null extends T[P] ? V | null : V };
/** A new contest: amounts as bigint micros, times as epoch ms (bound as int8 text). */
export type NewContestRow = Int8As<
  Int8As<Insertable<DB['contests']>, 'bet_amount' | 'protocol_prize_pool', bigint>,
  'entry_opens_at_ms' | 'betting_closes_ms' | 'live_ends_at_ms' | 'created_at_ms',
  number
>;
/** A new contest market: its id as bigint (from market_id_seq), times as epoch ms. */
export type NewContestMarketRow = Int8As<
  Int8As<Insertable<DB['contest_markets']>, 'market_id', bigint>,
  'betting_closes_at_ms' | 'live_ends_at_ms' | 'resolution_time_ms',
  number
>;

export const opt8 = (v: number | null | undefined) => (v === null || v === undefined ? null : int8(v));
