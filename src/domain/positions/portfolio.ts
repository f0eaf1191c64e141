// Reading positions and PnL (docs/trading.md, "PnL"): a taker's positions (keyset pages, newest first),
// one position, the portfolio summary and a maker's figures (one trading_stats row each: the counters are
// kept in the fill and settlement transactions), the PnL history (settled positions in resolution order
// with the running total), and a maker's fills.
import type { Em } from '../../db/orm.js';
import type { PositionsRepository } from '../../db/repositories/positions.repository.js';
import { isUuid, NotFound } from '../errors.js';
import { KeysetCursors } from '../keyset-cursor.js';
import type { Direction } from '../rfq/typed-data.js';
import type { LegOutcome, PositionStatus } from './outcome.js';
import { makerOwner, takerOwner } from '../trading-counters.js';
import { repos } from '../../db/repos.js';

export interface PositionLegRecord {
  legIndex: number;
  marketId: number;
  asset: string;
  durationSecs: number;
  windowStartMs: number;
  endAtMs: number;
  direction: Direction;
  outcome: LegOutcome;
}

export interface PositionRecord {
  id: string;
  rfqId: string;
  status: PositionStatus;
  stakeMicros: bigint;
  oddsBps: number;
  /** Gross payout if the taker wins (stake included). */
  payoutMicros: bigint;
  pnlMicros: bigint | null;
  createdAtMs: number;
  resolvedAtMs: number | null;
  legs: PositionLegRecord[];
}

export interface TradingFigures {
  openPositions: number;
  openStakeMicros: bigint;
  potentialPayoutMicros: bigint;
  settledPositions: number;
  wins: number;
  losses: number;
  voided: number;
  realizedPnlMicros: bigint;
}

const repo = (em: Em) => repos(em).positions;

type PositionRow = NonNullable<Awaited<ReturnType<PositionsRepository['position']>>>;

/** Each position's legs with their windows, by position id. */
async function legsByPosition(em: Em, positionIds: readonly string[]): Promise<Map<string, PositionLegRecord[]>> {
  const legs = new Map<string, PositionLegRecord[]>();
  if (!positionIds.length) return legs;
  for (const l of await repo(em).legsOf(positionIds)) {
    const start = l.start_at_ms;
    const list = legs.get(l.position_id) ?? [];
    list.push({
      legIndex: l.leg_index,
      marketId: l.market_id,
      asset: l.asset,
      durationSecs: l.duration_secs,
      windowStartMs: start,
      endAtMs: start + l.duration_secs * 1000,
      direction: l.direction,
      outcome: l.outcome,
    });
    legs.set(l.position_id, list);
  }
  return legs;
}

async function withLegs(em: Em, rows: readonly PositionRow[]): Promise<PositionRecord[]> {
  if (!rows.length) return [];
  const legs = await legsByPosition(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    rfqId: r.rfq_id,
    status: r.status,
    stakeMicros: r.stake,
    oddsBps: r.odds_bps,
    payoutMicros: r.payout,
    pnlMicros: r.pnl === null ? null : r.pnl,
    createdAtMs: r.created_at_ms,
    resolvedAtMs: r.resolved_at_ms,
    legs: legs.get(r.id) ?? [],
  }));
}

export async function listPositions(
  em: Em,
  userId: string,
  q: { status?: PositionStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ positions: PositionRecord[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'positions');
  const status = q.status ?? null;
  const after = cursors.decode(q.cursor, status);
  const rows = await repo(em).page(userId, status, after && { createdAtMs: after.atMs, id: after.id }, q.limit + 1);
  const positions = await withLegs(em, rows.slice(0, q.limit));
  const last = positions.at(-1);
  return { positions, nextCursor: rows.length > q.limit && last ? cursors.encode({ atMs: last.createdAtMs, id: last.id }, status) : null };
}

export async function getPosition(em: Em, userId: string, positionId: string): Promise<PositionRecord> {
  const row = isUuid(positionId) ? await repo(em).position(positionId) : undefined;
  if (!row || row.taker_user_id !== userId) throw new NotFound('POSITION_NOT_FOUND', 'no position with this id belongs to you');
  return (await withLegs(em, [row]))[0]!;
}

async function figures(em: Em, owner: string): Promise<TradingFigures | null> {
  const s = await repo(em).stats(owner);
  if (!s) return null;
  return {
    openPositions: s.open_count,
    openStakeMicros: s.open_stake,
    potentialPayoutMicros: s.potential_payout,
    settledPositions: s.settled_count,
    wins: s.wins,
    losses: s.losses,
    voided: s.voided,
    realizedPnlMicros: s.realized_pnl,
  };
}

const ZERO: TradingFigures = {
  openPositions: 0,
  openStakeMicros: 0n,
  potentialPayoutMicros: 0n,
  settledPositions: 0,
  wins: 0,
  losses: 0,
  voided: 0,
  realizedPnlMicros: 0n,
};

/** The taker's summary: one row read. */
export async function getPortfolio(em: Em, userId: string): Promise<TradingFigures> {
  return (await figures(em, takerOwner(userId))) ?? ZERO;
}

/** `GET /v1/mm/taker_pnl?wallet=`: the lifetime figures of the taker behind a wallet, null if it never traded. */
export async function takerStatsByWallet(em: Em, wallet: string): Promise<{ walletAddress: string; stats: TradingFigures | null }> {
  const user = await repo(em).userIdByWallet(wallet);
  const stats = user ? await figures(em, takerOwner(user.id)) : null;
  return { walletAddress: user?.wallet_address ?? wallet, stats: stats && (stats.openPositions || stats.settledPositions) ? stats : null };
}

/** `GET /v1/mm/pnl`: the maker's own figures (maker-side counters). */
export async function makerFigures(em: Em, makerWallet: string): Promise<TradingFigures> {
  return (await figures(em, makerOwner(makerWallet))) ?? ZERO;
}

export interface PnlEvent {
  positionId: string;
  resolvedAtMs: number;
  pnlMicros: bigint;
  cumulativeMicros: bigint;
}

/** Settled positions in (resolved_at_ms, id) order, with the running total since the first ever (not since from_ms). */
export async function pnlHistory(
  em: Em,
  userId: string,
  q: { fromMs?: number | undefined; toMs?: number | undefined; limit: number; cursor?: string | undefined },
): Promise<{ events: PnlEvent[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'pnl');
  const fromMs = q.fromMs ?? 0;
  const toMs = q.toMs ?? Number.MAX_SAFE_INTEGER;
  const filters = `${fromMs}:${toMs}`;
  const after = cursors.decode(q.cursor, filters);
  const rows = await repo(em).pnlEvents(userId, fromMs, toMs, after && { resolvedAtMs: after.atMs, id: after.id }, q.limit + 1);
  const events = rows.slice(0, q.limit).map((r) => ({
    positionId: r.id,
    resolvedAtMs: r.resolved_at_ms,
    pnlMicros: r.pnl,
    cumulativeMicros: r.cumulative,
  }));
  const last = events.at(-1);
  return {
    events,
    nextCursor: rows.length > q.limit && last ? cursors.encode({ atMs: last.resolvedAtMs, id: last.positionId }, filters) : null,
  };
}

export interface MakerFillRecord {
  fillId: string;
  positionId: string;
  rfqId: string;
  quoteId: string;
  stakeMicros: bigint;
  oddsBps: number;
  liabilityMicros: bigint;
  /** The position's status (taker-relative). */
  status: PositionStatus;
  makerPnlMicros: bigint | null;
  createdAtMs: number;
  /** The position's legs (what the maker is exposed to). */
  legs: PositionLegRecord[];
}

export async function listMakerFills(
  em: Em,
  makerWallet: string,
  q: { status?: PositionStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ fills: MakerFillRecord[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'maker-fills');
  const status = q.status ?? null;
  const after = cursors.decode(q.cursor, status);
  const rows = await repo(em).makerFills(
    makerWallet.toLowerCase(),
    status,
    after && { createdAtMs: after.atMs, id: after.id },
    q.limit + 1,
  );
  const page = rows.slice(0, q.limit);
  const legs = await legsByPosition(em, [...new Set(page.map((r) => r.position_id))]);
  const fills = page.map((r) => ({
    fillId: r.id,
    positionId: r.position_id,
    rfqId: r.rfq_id,
    quoteId: r.quote_id,
    stakeMicros: r.stake,
    oddsBps: r.odds_bps,
    liabilityMicros: r.liability,
    status: r.status,
    makerPnlMicros: r.maker_pnl === null ? null : r.maker_pnl,
    createdAtMs: r.created_at_ms,
    legs: legs.get(r.position_id) ?? [],
  }));
  const last = fills.at(-1);
  return { fills, nextCursor: rows.length > q.limit && last ? cursors.encode({ atMs: last.createdAtMs, id: last.fillId }, status) : null };
}
