// Medium tier, real PostgreSQL: the price sources' shared state. One fetch per boundary (window N's close is
// window N+1's open, for every reader sharing the database); a source found `blocked` is not asked during
// windows until a probe clears it; probes record each source's state (`ok` only after an answer, `unknown`
// before); the listing check names the asset and the sources; the resolution backlog the gauges report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { ensureWindows } from '../markets/markets.js';
import { resolutionBacklog } from '../markets/resolution-backlog.js';
import { resolveWindowFromFeed } from '../markets/window-feed.js';
import type { PriceFeed } from './feed.js';
import { blockedLookup, recordSourceHealth, sourceStatuses } from './health.js';
import { databaseObservationCache, pruneObservations } from './observation-cache.js';
import { listingProblems, probeSources, recordProbes } from './probe.js';
import { createQuorumFeed } from './read.js';
import { Abstain } from '../../adapters/prices/reasons.js';

let t: MigratedOrm;
const em = () => t.orm.em.fork();
beforeAll(async () => {
  t = await migratedOrm('psources');
});
afterAll(async () => t?.close());

/** A source counting its requests per boundary; `blocked` answers 451 like Binance from a restricted region. */
function counted(name: string, opts: { blocked?: boolean; lists?: string[] } = {}) {
  const asked: number[] = [];
  const feed: PriceFeed = {
    source: name,
    covers: () => true,
    async priceAt(_asset, ts) {
      asked.push(ts);
      if (opts.blocked) throw new Abstain('blocked', 'HTTP 451: Service unavailable from a restricted location', { status: 451 });
      return { priceMicros: BigInt(1_000_000 + ts / 1000), observedAtMs: ts - 1, sourceRef: `k:${ts}` };
    },
    async probe(assets) {
      if (opts.blocked) throw new Abstain('blocked', 'HTTP 451', { status: 451 });
      return {
        listed: assets.filter((a) => (opts.lists ?? assets).includes(a)),
        unlisted: assets.filter((a) => !(opts.lists ?? assets).includes(a)),
      };
    },
  };
  return { feed, asked };
}

describe('one fetch per boundary', () => {
  it("window N's close is window N+1's open: fetched once, for every reader sharing the database", async () => {
    const a = counted('alpha');
    const T = 1_767_225_600_000;
    const reader = () => createQuorumFeed([a.feed], 1, 5000, { cache: databaseObservationCache(em) }); // two "processes"
    const [r1, r2] = await Promise.all([reader().read('BTC', T, T + 5000), reader().read('BTC', T + 5000, T + 10_000)]);
    expect(r1.readings[0]!.close).toEqual(r2.readings[0]!.open);
    await reader().read('BTC', T + 10_000, T + 15_000);
    expect(a.asked.filter((ts) => ts === T + 5000).length).toBeLessThanOrEqual(2); // at most the two concurrent first asks
    expect(a.asked.filter((ts) => ts === T + 10_000)).toHaveLength(1); // later: from the shared store
    const again = await reader().read('BTC', T, T + 15_000);
    expect(again.health[0]!.requests).toBe(0);
    expect(again.readings[0]!.close).toMatchObject({ sourceRef: `k:${T + 15_000}` });
    expect(await pruneObservations(em(), Date.now() + 2 * 86_400_000)).toBeGreaterThanOrEqual(4); // a day after they were fetched
  });

  it('in one process, concurrent reads of a boundary share one request', async () => {
    const b = counted('beta');
    const q = createQuorumFeed([b.feed], 1, 5000);
    const T = 1_767_225_700_000;
    await Promise.all([q.read('BTC', T, T + 5000), q.read('BTC', T + 5000, T + 10_000)]);
    expect(b.asked.filter((ts) => ts === T + 5000)).toHaveLength(1);
  });
});

describe('states', () => {
  it('unknown before a probe, ok after an answer, blocked on a 451 with the fix; a blocked source is not asked during windows', async () => {
    const ok = counted('pyth', { lists: ['BTC'] });
    const blocked = counted('binance', { blocked: true });
    expect((await sourceStatuses(em(), ['pyth', 'binance'], Date.now())).map((s) => s.state)).toEqual(['unknown', 'unknown']);
    const outcomes = await probeSources([ok.feed, blocked.feed], ['BTC', 'ETH']);
    await recordProbes(em(), outcomes, Date.now());
    const [pyth, binance] = await sourceStatuses(em(), ['pyth', 'binance'], Date.now());
    expect(pyth).toMatchObject({
      state: 'ok',
      reason: null,
      fix: null,
      listed: ['BTC'],
      unlisted: ['ETH'],
      checkedAtMs: expect.any(Number),
    });
    expect(binance).toMatchObject({ state: 'blocked', reason: 'blocked', detail: 'HTTP 451' });
    expect(binance!.fix).toContain('BINANCE_API_URL=https://data-api.binance.vision');

    // The windows' reader leaves the blocked source alone: no request, the reason on record.
    const q = createQuorumFeed([ok.feed, blocked.feed], 1, 5000, { blocked: blockedLookup(em, 0) });
    const { readings, health } = await q.read('BTC', 1_767_225_800_000, 1_767_225_805_000);
    expect(blocked.asked).toEqual([]);
    expect(readings[1]).toMatchObject({ source: 'binance', open: null, reason: 'blocked' });
    expect(health[1]).toMatchObject({ requests: 0 });
  });

  it('a window request answered 451 marks the source blocked for every process until a probe clears it', async () => {
    const c = counted('okx', { blocked: true });
    const q = createQuorumFeed([c.feed], 1, 5000);
    const { health } = await q.read('BTC', 1_767_225_900_000, 1_767_225_905_000);
    await recordSourceHealth(em(), health);
    expect((await sourceStatuses(em(), ['okx'], Date.now()))[0]).toMatchObject({ state: 'blocked' });
    await recordProbes(em(), await probeSources([counted('okx').feed], ['BTC']), Date.now());
    expect((await sourceStatuses(em(), ['okx'], Date.now()))[0]).toMatchObject({ state: 'ok' });
  });

  it('the listing check names each asset fewer than the quorum of sources list, and the sources', async () => {
    const a = counted('pyth', { lists: ['BTC', 'ETH'] });
    const b = counted('okx', { lists: ['BTC'] });
    const down: PriceFeed = {
      source: 'coinbase',
      covers: (x) => x !== 'XRP',
      priceAt: async () => null,
      probe: () => Promise.reject(new Abstain('unreachable', 'down')),
    };
    const outcomes = await probeSources([a.feed, b.feed, down], ['BTC', 'ETH', 'XRP']);
    expect(listingProblems([a.feed, b.feed, down], outcomes, ['BTC', 'ETH', 'XRP'], 2)).toEqual([
      'MARKET_ASSETS: XRP is listed by 0 of the price sources (pyth (does not list it), okx (does not list it), coinbase (not configured for it)), fewer than PRICE_QUORUM (2); remove it from MARKET_ASSETS or configure more sources for it',
    ]);
    // ETH: pyth lists it; coinbase did not answer and is taken at its configuration's word.
    const none = counted('okx', { lists: [] }); // answered, lists none of them: state `failing`, and it counts for no asset
    const noneOut = await probeSources([a.feed, none.feed], ['BTC']);
    expect(noneOut[1]).toMatchObject({ state: 'failing', reason: 'not_listed' });
    expect(listingProblems([a.feed, none.feed], noneOut, ['BTC'], 2)).toEqual([
      'MARKET_ASSETS: BTC is listed by 1 of the price sources (pyth, okx (does not list it)), fewer than PRICE_QUORUM (2); remove it from MARKET_ASSETS or configure more sources for it',
    ]);
  });
});

describe('the resolution backlog', () => {
  it('counts windows with open positions ended past the threshold without an outcome, and DISPUTED ones', async () => {
    const now = Date.now();
    const start = Math.floor(now / 60_000) * 60_000 - 10 * 60_000;
    await ensureWindows(em(), [{ asset: 'SOL', durationSecs: 60, startAtMs: start }]);
    const marketId = Number(
      (await db(em()).selectFrom('markets').select('market_id').where('asset', '=', 'SOL').executeTakeFirstOrThrow()).market_id,
    );
    expect(await resolutionBacklog(em(), now, 60_000)).toEqual({ overdue: 0, oldestOverdueEndMs: null, disputed: 0 }); // nobody traded it
    const split = createQuorumFeed(
      [
        { source: 'a', priceAt: async (_x, ts) => ({ priceMicros: ts === start ? 1n : 2n, observedAtMs: ts }) },
        { source: 'b', priceAt: async (_x, ts) => ({ priceMicros: ts === start ? 2n : 1n, observedAtMs: ts }) },
      ],
      1,
      5000,
    );
    await resolveWindowFromFeed(em(), split, marketId, { nowMs: now, maxWaitMs: 1000, disputeVoidAfterMs: 3_600_000 });
    expect((await resolutionBacklog(em(), now, 60_000)).disputed).toBe(1);
  });
});
