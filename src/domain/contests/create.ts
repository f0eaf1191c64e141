// Operator: create a contest with its markets (spec/openapi.yaml createContest). Market ids come from the one
// market_id_seq through the markets table (kind 'contest'), so a contest market never shares an id with an
// RFQ window.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { NotFound, ValidationFailed } from '../errors.js';
import { imageExists, type Category } from './images.js';
import type { EntryVisibility, GameType } from './records.js';
import { repos } from '../../db/repos.js';

export interface NewContestMarket {
  category: string;
  name: string;
  description?: string | undefined;
  sourceKind?: string | undefined;
  sourceEventId?: string | undefined;
  sourceMarketId?: string | undefined;
  bettingClosesAtMs?: number | undefined;
  liveEndsAtMs?: number | undefined;
  resolutionTimeMs?: number | undefined;
}

export interface NewContest {
  title: string;
  category: Category;
  gameType: GameType;
  description?: string | undefined;
  betAmount: bigint;
  prizePool: bigint;
  entryCap: number;
  maxEntriesPerUser: number;
  entryOpensAtMs?: number | undefined;
  bettingClosesMs: number;
  liveEndsAtMs?: number | undefined;
  betType: { kind: 'num_bets' | 'bets_per_category'; value: number };
  winningSplitBps: number[];
  imageId?: string | undefined;
  entryVisibility: EntryVisibility;
  markets: NewContestMarket[];
}

type Detail = { in: 'body'; path: string; message: string };

const orNull = (v: number | undefined) => (v === undefined ? null : v);

/** The rules the schema cannot express; every failure is listed (400 VALIDATION_FAILED). */
export function checkNewContest(c: NewContest): Detail[] {
  const d: Detail[] = [];
  const bps = c.winningSplitBps.reduce((a, b) => a + b, 0);
  if (bps > 10_000) d.push({ in: 'body', path: '/winning_split_bps', message: `must sum to at most 10000 (sums to ${bps})` });
  if (c.entryOpensAtMs !== undefined && c.entryOpensAtMs >= c.bettingClosesMs) {
    d.push({ in: 'body', path: '/entry_opens_at_ms', message: 'must be before betting_closes_ms' });
  }
  if (c.liveEndsAtMs !== undefined && c.liveEndsAtMs < c.bettingClosesMs) {
    d.push({ in: 'body', path: '/live_ends_at_ms', message: 'must not be before betting_closes_ms' });
  }
  const maxPot = c.prizePool + BigInt(c.entryCap) * c.betAmount;
  if (maxPot > BigInt(Number.MAX_SAFE_INTEGER)) {
    d.push({
      in: 'body',
      path: '/entry_cap',
      message: 'protocol_prize_pool_micros + entry_cap * bet_amount_micros must not exceed 2^53-1 (the pot is a JSON integer)',
    });
  }
  const perCategory = new Map<string, number>();
  for (const m of c.markets) perCategory.set(m.category, (perCategory.get(m.category) ?? 0) + 1);
  if (c.betType.kind === 'num_bets' && c.betType.value > c.markets.length) {
    d.push({
      in: 'body',
      path: '/bet_type/value',
      message: `num_bets ${c.betType.value} needs at least that many markets (the contest has ${c.markets.length})`,
    });
  }
  if (c.betType.kind === 'bets_per_category') {
    const short = [...perCategory].filter(([, n]) => n < c.betType.value).map(([cat]) => cat);
    if (short.length) {
      d.push({
        in: 'body',
        path: '/bet_type/value',
        message: `bets_per_category ${c.betType.value} needs that many markets in every category; too few in: ${short.join(', ')}`,
      });
    }
  }
  return d;
}

/** Creates the contest and its markets in one transaction; returns the new contest id. */
export async function createContest(em: Em, c: NewContest, nowMs = Date.now()): Promise<string> {
  const details = checkNewContest(c);
  if (details.length)
    throw new ValidationFailed(`The contest is not valid: ${details.map((x) => `${x.path} ${x.message}`).join('; ')}.`, details);
  // Uploaded ids are UUIDs: store them in the lower case the upload's `url` uses, whatever case was sent.
  const imageId =
    c.imageId !== undefined && /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(c.imageId) ? c.imageId.toLowerCase() : c.imageId;
  if (imageId !== undefined && !(await imageExists(em, imageId))) {
    throw new NotFound(
      'IMAGE_NOT_FOUND',
      `No image has the id ${JSON.stringify(c.imageId)}; upload one with POST /v1/admin/pool-images or omit image_id for the category's default.`,
    );
  }
  const id = randomUUID();
  await em.transactional(async (tx) => {
    const repo = repos(tx).contests;
    await repo.insertContest({
      id,
      title: c.title,
      category: c.category,
      game_type: c.gameType,
      description: c.description ?? null,
      bet_amount: c.betAmount,
      protocol_prize_pool: c.prizePool,
      entry_cap: c.entryCap,
      max_entries_per_user: c.maxEntriesPerUser,
      open_market_count: c.markets.length,
      entry_opens_at_ms: orNull(c.entryOpensAtMs),
      betting_closes_ms: c.bettingClosesMs,
      live_ends_at_ms: orNull(c.liveEndsAtMs),
      bet_type_kind: c.betType.kind,
      bet_type_value: c.betType.value,
      winning_split_bps: c.winningSplitBps,
      image_id: imageId ?? null,
      entry_visibility: c.entryVisibility,
      created_at_ms: nowMs,
    });
    const ids = await repo.newContestMarketIds(c.markets.length);
    const marketIds = ids.map((r) => r.market_id).sort((a, b) => (a < b ? -1 : 1));
    await repo.insertMarkets(
      c.markets.map((m, i) => ({
        market_id: marketIds[i]!,
        contest_id: id,
        position: i,
        category: m.category,
        name: m.name,
        description: m.description ?? null,
        source_kind: m.sourceKind ?? null,
        source_event_id: m.sourceEventId ?? null,
        source_market_id: m.sourceMarketId ?? null,
        betting_closes_at_ms: orNull(m.bettingClosesAtMs),
        live_ends_at_ms: orNull(m.liveEndsAtMs),
        resolution_time_ms: orNull(m.resolutionTimeMs),
      })),
    );
  });
  return id;
}
