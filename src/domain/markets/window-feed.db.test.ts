// Medium tier: a window resolved by a quorum of price sources on real PostgreSQL. Agreement records the
// outcome with every reading; a split or too few readings by the wait leave it DISPUTED (readings on record)
// until the operator resolves it or its deadline voids it; concurrent resolvers record one decision; the
// sources' health is counted. The sources here are in-process PriceFeeds (their HTTP/chain adapters have
// their own tests against local servers and anvil).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import type { PriceFeed, PriceObservation } from '../prices/feed.js';
import { sourceHealth, recordSourceHealth } from '../prices/health.js';
import { createQuorumFeed } from '../prices/read.js';
import { ensureWindows } from './markets.js';
import { resolveWindowFromFeed } from './window-feed.js';
import { getWindowState, resolveWindowByOperator } from './window-resolution.js';

const W = 60_000;
const BUFFER = 10_000;
const T0 = Math.floor(Date.now() / W) * W - 100 * W; // long ended windows
let t: MigratedOrm;
const em = () => t.orm.em.fork();

beforeAll(async () => {
  t = await migratedOrm('winfeed');
});
afterAll(async () => t?.close());

/** A source answering `open` at the current window's start and `close` at its end; `fail` throws like a source that is down. */
function source(name: string, open: bigint, close: bigint, opts: { fail?: boolean; ageMs?: number } = {}): PriceFeed {
  return {
    source: name,
    async priceAt(_asset, ts): Promise<PriceObservation | null> {
      if (opts.fail) throw new Error(`${name} is down`);
      return { priceMicros: ts === current.start ? open : close, observedAtMs: ts - (opts.ageMs ?? 0), sourceRef: `ref:${ts}` };
    },
  };
}
const current = { start: 0 };

let n = 0;
async function window(): Promise<{ id: number; start: number; end: number }> {
  const start = T0 + n++ * W;
  current.start = start;
  await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 60, startAtMs: start }]);
  const row = await db(em()).selectFrom('markets').select('market_id').where('start_at_ms', '=', String(start)).executeTakeFirstOrThrow();
  return { id: Number(row.market_id), start, end: start + W };
}

const names = ['chainlink', 'binance', 'coinbase'];
const opts = (nowMs: number, extra: Partial<{ maxWaitMs: number; disputeVoidAfterMs: number }> = {}) => ({
  nowMs,
  maxWaitMs: 30_000,
  disputeVoidAfterMs: 3_600_000,
  ...extra,
});

describe('resolveWindowFromFeed by quorum', () => {
  it('two of three agree, the third down: resolved with every reading on record, first agreeing source priced', async () => {
    const w = await window();
    const feed = createQuorumFeed(
      [
        source('chainlink', 0n, 0n, { fail: true }),
        source('binance', 100_000_000n, 100_500_000n),
        source('coinbase', 100_100_000n, 100_200_000n),
      ],
      2,
      5000,
    );
    const samples: unknown[] = [];
    const r = await resolveWindowFromFeed(em(), feed, w.id, { ...opts(w.end + 2000), onHealth: (h) => void samples.push(...h) });
    expect(r).toEqual({ kind: 'resolved', outcome: 'YES', recorded: true });
    const s = await getWindowState(em(), w.id, BUFFER, w.end + 3000);
    expect(s).toMatchObject({
      status: 'RESOLVED',
      outcome: 'YES',
      priceSource: 'binance',
      openPriceMicros: 100_000_000n,
      closePriceMicros: 100_500_000n,
    });
    expect(s.check).toMatchObject({
      state: 'agreed',
      quorum: 2,
      sources: names,
      maxAgeMs: { chainlink: 5000, binance: 5000, coinbase: 5000 },
      voidAtMs: null,
    });
    expect(s.sources.map((x) => [x.source, x.verdict, x.reason, x.maxAgeMs])).toEqual([
      ['chainlink', 'missing', 'source_error', 5000],
      ['binance', 'YES', null, 5000],
      ['coinbase', 'YES', null, 5000],
    ]);
    expect(s.sources[0]!.error).toBe('chainlink is down'); // kept for the operator, never on the public wire (a code is)
    expect(s.sources[1]!.open).toEqual({ priceMicros: 100_000_000n, observedAtMs: w.start, ref: `ref:${w.start}`, confidenceMicros: null });
    expect(samples).toHaveLength(3);
    // Re-running changes nothing.
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 9000))).toEqual({
      kind: 'resolved',
      outcome: 'YES',
      recorded: false,
    });
  });

  it('a split with every source voting is DISPUTED at once; the operator resolves it; the readings stay', async () => {
    const w = await window();
    const feed = createQuorumFeed([source('binance', 100n, 101n), source('coinbase', 100n, 99n)], 1, 5000);
    const r = await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 1000));
    expect(r).toEqual({ kind: 'disputed', reason: 'disagreement', voidAtMs: w.end + 1000 + 3_600_000, recorded: true });
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 2000))).toMatchObject({ kind: 'disputed', recorded: false });
    const disputed = await getWindowState(em(), w.id, BUFFER, w.end + 2000);
    expect(disputed).toMatchObject({ status: 'DISPUTED', outcome: null, check: { state: 'disputed', reason: 'disagreement' } });
    expect(disputed.sources.map((x) => x.verdict)).toEqual(['YES', 'NO']);
    const resolved = await resolveWindowByOperator(em(), w.id, 'NO', BUFFER, w.end + 5000);
    expect(resolved).toMatchObject({ status: 'RESOLVED', outcome: 'NO', priceSource: 'operator' });
    expect(resolved.sources).toHaveLength(2);
    await expect(resolveWindowByOperator(em(), w.id, 'YES', BUFFER, w.end + 6000)).rejects.toMatchObject({
      code: 'MARKET_ALREADY_RESOLVED',
    });
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 4_000_000))).toEqual({
      kind: 'resolved',
      outcome: 'NO',
      recorded: false,
    });
  });

  it('too few readings: waits until the max wait, then DISPUTED; voids at its deadline; stale readings do not vote', async () => {
    const w = await window();
    const feed = createQuorumFeed(
      [source('chainlink', 100n, 101n), source('binance', 100n, 101n, { ageMs: 6000 }), source('coinbase', 0n, 0n, { fail: true })],
      2,
      5000,
    );
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 1000))).toEqual({ kind: 'waiting_for_price' });
    expect((await getWindowState(em(), w.id, BUFFER, w.end + 1000)).status).toBe('CLOSED');
    const d = await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 30_000, { disputeVoidAfterMs: 60_000 }));
    expect(d).toEqual({ kind: 'disputed', reason: 'too_few_readings', voidAtMs: w.end + 90_000, recorded: true });
    expect((await getWindowState(em(), w.id, BUFFER, w.end + 31_000)).sources.map((x) => x.verdict)).toEqual(['YES', 'stale', 'missing']);
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 89_999))).toMatchObject({ kind: 'disputed', recorded: false });
    expect(await resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 90_000))).toEqual({
      kind: 'resolved',
      outcome: 'VOID',
      recorded: true,
    });
    expect(await getWindowState(em(), w.id, BUFFER, w.end + 90_000)).toMatchObject({ status: 'VOIDED', priceSource: 'dispute-deadline' });
  });

  it('concurrent resolvers and an operator racing the feed: one decision, the first writer wins', async () => {
    const w = await window();
    const feed = createQuorumFeed([source('binance', 100n, 101n), source('coinbase', 100n, 102n)], 2, 5000);
    const runs = await Promise.all(Array.from({ length: 6 }, () => resolveWindowFromFeed(em(), feed, w.id, opts(w.end + 1000))));
    expect(runs.filter((r) => r.kind === 'resolved' && r.recorded)).toHaveLength(1);
    expect(runs.every((r) => r.kind === 'resolved' && r.outcome === 'YES')).toBe(true);
    const rows = await db(em()).selectFrom('window_price_readings').select('source').where('market_id', '=', String(w.id)).execute();
    expect(rows).toHaveLength(2);

    const v = await window();
    const slow: PriceFeed = {
      source: 'binance',
      priceAt: async (_a, ts) => ({ priceMicros: ts === v.start ? 100n : 50n, observedAtMs: ts }),
    };
    const slowFeed = createQuorumFeed([slow], 1, 5000);
    const [feedRun, op] = await Promise.allSettled([
      resolveWindowFromFeed(em(), slowFeed, v.id, opts(v.end + 1000)),
      resolveWindowByOperator(em(), v.id, 'YES', BUFFER, v.end + 1000),
    ]);
    const final = await getWindowState(em(), v.id, BUFFER, v.end + 2000);
    if (op.status === 'fulfilled') {
      expect(final).toMatchObject({ outcome: 'YES', priceSource: 'operator' });
      expect(feedRun).toMatchObject({ status: 'fulfilled', value: { kind: 'resolved', outcome: 'YES', recorded: false } });
      expect(final.check).toBeNull(); // the feed's losing decision left nothing behind
    } else {
      expect(final).toMatchObject({ outcome: 'NO', priceSource: 'binance' });
      expect(op.reason).toMatchObject({ code: 'MARKET_ALREADY_RESOLVED' });
    }
  });

  it('counts every source: requests, failures and latency, and its last success and failure', async () => {
    await recordSourceHealth(em(), [
      { source: 'binance', requests: 2, failures: 0, latencyMs: 40, atMs: 1000, error: null },
      { source: 'coinbase', requests: 2, failures: 2, latencyMs: 4000, atMs: 1000, error: 'HTTP 503 (after 3 tries)' },
    ]);
    await recordSourceHealth(em(), [{ source: 'coinbase', requests: 2, failures: 1, latencyMs: 100, atMs: 2000, error: 'HTTP 429' }]);
    const h = await sourceHealth(em());
    expect(h.find((x) => x.source === 'binance')).toMatchObject({
      requests: 2,
      failures: 0,
      latencyMsTotal: 40,
      lastSuccessAtMs: 1000,
      lastFailureAtMs: null,
    });
    expect(h.find((x) => x.source === 'coinbase')).toMatchObject({
      requests: 4,
      failures: 3,
      latencyMsTotal: 4100,
      lastSuccessAtMs: 2000,
      lastFailureAtMs: 2000,
    });
  });
});
