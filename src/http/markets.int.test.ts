// RFQ market windows over HTTP against the real service on PostgreSQL and Redis: current and lookup agree on
// market_id, the betting-close buffer moves current to the next window, the query rules, Cache-Control,
// and the rollover job (scheduler in the service's workers; concurrent rollovers on real PostgreSQL).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { getCurrentMarket, lookupMarket } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { createOrm, type Orm } from '../db/orm.js';
import { rollWindows, type MarketSettings } from '../domain/markets/markets.js';
import { currentWindow, windowStart } from '../domain/markets/windows.js';

// A 59 s buffer makes "inside the buffer" the normal state of a 60 s window (all but its first second).
const SETTINGS: MarketSettings = { assets: ['BTC', 'ETH'], durations: [60, 300], bettingCloseBufferMs: 59_000, lookupHorizonMs: 3_600_000 };
let db: TestDatabase;
let svc: ServiceProcess;
let sql: pg.Client;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase('markets');
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniquePrefix('markets'),
      RATE_LIMIT_PER_MINUTE: '0',
      MARKET_ASSETS: SETTINGS.assets.join(','),
      MARKET_DURATIONS: SETTINGS.durations.join(','),
      MARKET_BETTING_CLOSE_BUFFER_MS: String(SETTINGS.bettingCloseBufferMs),
      MARKET_LOOKUP_HORIZON_MS: String(SETTINGS.lookupHorizonMs),
    },
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  orm = await createOrm({ databaseUrl: db.url });
});

afterAll(async () => {
  await orm?.close(true);
  await sql?.end();
  if (svc) expect(await svc.stop()).toBe(0);
  await db?.drop();
});

const current = (asset: string, duration: number) =>
  send(getCurrentMarket({ client: sdkClient(svc.baseUrl), query: { asset, duration_secs: duration } }));
const lookup = (asset: string, duration: number, start: number) =>
  send(lookupMarket({ client: sdkClient(svc.baseUrl), query: { asset, duration_secs: duration, window_start_ms: start } }));
/** Raw GET: malformed or missing query parameters are what the SDK's types refuse to send. */
const rawGet = async (path: string) => {
  const res = await fetch(`${svc.baseUrl}${path}`);
  return { status: res.status, code: ((await res.json()) as { code?: string }).code };
};
const maxAge = (h: Headers) => Number(/max-age=(\d+)/.exec(h.get('cache-control') ?? '')?.[1]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `now mod period` is in [lo, hi), so a request lands clear of a window edge. */
async function awayFromEdges(periodMs: number, lo: number, hi: number): Promise<void> {
  while (true) {
    const phase = Date.now() % periodMs;
    if (phase >= lo && phase < hi) return;
    await sleep(phase < lo ? lo - phase : periodMs - phase + lo);
  }
}

describe('GET /v1/markets/current', () => {
  it('returns the next 60 s window once now is inside the buffer, with the same market_id as lookup', async () => {
    await awayFromEdges(60_000, 2_000, 55_000);
    const t0 = Date.now();
    const res = await current('BTC', 60);
    expect(res.status).toBe(200);
    const m = res.data!.market;
    expect(Object.keys(res.data ?? {})).toEqual(['market']);
    expect(Object.keys(m).sort()).toEqual(['asset', 'betting_closes_at_ms', 'duration_secs', 'market_id', 'start_at_ms']);
    // now is at least 2 s into its window, so past the betting close (1 s in): current is the next window.
    expect(m.start_at_ms).toBe(windowStart(t0, 60) + 60_000);
    expect(m).toMatchObject({ asset: 'BTC', duration_secs: 60, betting_closes_at_ms: m.start_at_ms + 1_000 });
    expect(Number.isInteger(m.market_id)).toBe(true);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(maxAge(res.headers)).toBeLessThanOrEqual(Math.ceil((m.betting_closes_at_ms - t0) / 1000));

    const again = await lookup('BTC', 60, m.start_at_ms);
    expect(again.status).toBe(200);
    expect(again.data?.market).toEqual(m);
    expect(again.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await current('BTC', 60)).data?.market.market_id).toBe(m.market_id);
  });

  it('returns the window containing now before its betting close (300 s window, 59 s buffer)', async () => {
    // No waiting for a phase: the expected window is computed from the request's time (the window math
    // and its edges are pinned by windows.test.ts); 4 minutes in 5 that is the window containing now.
    const t0 = Date.now();
    const res = await current('ETH', 300);
    const t1 = Date.now();
    expect(res.status).toBe(200);
    const m = res.data!.market;
    const expected = new Set([currentWindow(t0, 300, 59_000).startAtMs, currentWindow(t1, 300, 59_000).startAtMs]);
    expect(expected).toContain(m.start_at_ms);
    if (t1 % 300_000 < 241_000 && windowStart(t0, 300) === windowStart(t1, 300)) expect(m.start_at_ms).toBe(windowStart(t0, 300));
    expect(m.betting_closes_at_ms).toBe(m.start_at_ms + 241_000);
    expect((await lookup('ETH', 300, m.start_at_ms)).data?.market.market_id).toBe(m.market_id);
  });

  it('concurrent first requests for a window converge on one market_id', async () => {
    const start = windowStart(Date.now(), 300) + 1_800_000; // within the horizon, created by nobody yet
    const results = await Promise.all(Array.from({ length: 12 }, () => lookup('ETH', 300, start)));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(results.map((r) => r.data?.market.market_id)).size).toBe(1);
    const rows = await sql.query('select count(*)::int as n from markets where asset = $1 and duration_secs = 300 and start_at_ms = $2', [
      'ETH',
      start,
    ]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('404 MARKET_NOT_FOUND for an asset or duration not offered, naming the offered ones', async () => {
    const asset = await current('DOGE', 60);
    expect(asset.status).toBe(404);
    expect(asset.error?.code).toBe('MARKET_NOT_FOUND');
    expect(asset.error?.error).toContain('BTC, ETH');
    const duration = await current('BTC', 120);
    expect(duration.status).toBe(404);
    expect(duration.error?.code).toBe('MARKET_NOT_FOUND');
    expect(duration.error?.error).toContain('60, 300');
  });

  it('400 VALIDATION_FAILED for missing or malformed parameters', async () => {
    for (const path of [
      '/v1/markets/current',
      '/v1/markets/current?asset=BTC',
      '/v1/markets/current?duration_secs=60',
      '/v1/markets/current?asset=btc&duration_secs=60',
      '/v1/markets/current?asset=BTC&duration_secs=abc',
      '/v1/markets/current?asset=BTC&duration_secs=0',
      '/v1/markets/current?asset=BTC&duration_secs=1.5',
    ]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(400);
      expect(res.code, path).toBe('VALIDATION_FAILED');
    }
  });
});

describe('GET /v1/markets/lookup', () => {
  it('400 WINDOW_NOT_ALIGNED for a start that is no multiple of the duration', async () => {
    const aligned = windowStart(Date.now(), 300);
    for (const start of [aligned + 1, aligned + 60_000, aligned - 1]) {
      const res = await lookup('BTC', 300, start);
      expect(res.status).toBe(400);
      expect(res.error).toMatchObject({ code: 'WINDOW_NOT_ALIGNED', details: null });
    }
  });

  it('400 VALIDATION_FAILED for missing or malformed parameters', async () => {
    for (const q of [
      'asset=BTC&duration_secs=60',
      'asset=BTC&duration_secs=60&window_start_ms=abc',
      'asset=BTC&duration_secs=60&window_start_ms=-60000',
      'duration_secs=60&window_start_ms=0',
    ]) {
      const res = await rawGet(`/v1/markets/lookup?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.code, q).toBe('VALIDATION_FAILED');
    }
  });

  it('404 beyond the horizon unless the window exists; 200 at the horizon edge', async () => {
    const now = Date.now();
    const edge = windowStart(now + SETTINGS.lookupHorizonMs, 300); // <= now + horizon
    expect((await lookup('BTC', 300, edge)).status).toBe(200);
    const beyond = windowStart(now + SETTINGS.lookupHorizonMs, 300) + 600_000;
    const res = await lookup('BTC', 300, beyond);
    expect(res.status).toBe(404);
    expect(res.error?.code).toBe('MARKET_NOT_FOUND');
    expect((await sql.query('select 1 from markets where start_at_ms = $1', [beyond])).rowCount).toBe(0);
    expect((await lookup('BTC', 300, 9_007_199_254_740_000 * 1000)).status).toBe(404);
    // created otherwise (here: a rollover run as of a later time), it is found
    await rollWindows(orm.em.fork(), SETTINGS, beyond);
    const found = await lookup('BTC', 300, beyond);
    expect(found.status).toBe(200);
    expect(found.data?.market.start_at_ms).toBe(beyond);
  });

  it('past windows within the horizon: created on demand, stable, cached as immutable; older ones 404', async () => {
    const past = windowStart(Date.now() - 1_800_000, 60); // 30 min ago: inside the 1-hour test horizon
    const first = await lookup('ETH', 60, past);
    expect(first.status).toBe(200);
    expect(first.data?.market).toMatchObject({ asset: 'ETH', duration_secs: 60, start_at_ms: past, betting_closes_at_ms: past + 1_000 });
    expect(first.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    expect((await lookup('ETH', 60, past)).data?.market.market_id).toBe(first.data?.market.market_id);
    const ancient = await lookup('ETH', 60, 0); // 1970: never created, outside the horizon
    expect(ancient.status).toBe(404);
    expect(ancient.error?.code).toBe('MARKET_NOT_FOUND');
  });

  it('404 for an asset or duration not offered', async () => {
    expect((await lookup('DOGE', 60, 0)).error?.code).toBe('MARKET_NOT_FOUND');
    expect((await lookup('BTC', 900, 0)).error?.code).toBe('MARKET_NOT_FOUND');
  });
});

describe('rollover', () => {
  it('the roll-windows job scheduler creates the current and the next window of every asset and duration', async () => {
    expect(((await svc.waitForLog((l) => l.msg === 'workers started')).queues as string[]).some((q) => q.endsWith('_market-windows'))).toBe(
      true,
    );
    const deadline = Date.now() + 40_000;
    let missing: string[] = [];
    while (Date.now() < deadline) {
      const now = Date.now();
      missing = [];
      for (const d of SETTINGS.durations) {
        const { startAtMs } = currentWindow(now, d, SETTINGS.bettingCloseBufferMs);
        for (const asset of SETTINGS.assets) {
          for (const start of [startAtMs, startAtMs + d * 1000]) {
            const r = await sql.query(
              "select 1 from markets where kind = 'rfq_window' and asset = $1 and duration_secs = $2 and start_at_ms = $3",
              [asset, d, start],
            );
            if (!r.rowCount) missing.push(`${asset}/${d}/${start}`);
          }
        }
      }
      // 60 s windows roll every minute; the job runs every 30 s, so accept a miss only of the freshly-due next 60 s window.
      if (missing.every((k) => k.includes('/60/')) && missing.length <= SETTINGS.assets.length) break;
      await sleep(1_000);
    }
    expect(missing.filter((k) => !k.includes('/60/'))).toEqual([]);
    const created = await sql.query("select count(*)::int as n from markets where kind = 'rfq_window' and duration_secs = 300");
    expect(created.rows[0].n).toBeGreaterThanOrEqual(4);
  });

  it('concurrent rollovers on PostgreSQL create each window once', async () => {
    const later = Date.now() + 30 * 86_400_000; // windows nobody created yet
    const runs = await Promise.all(Array.from({ length: 8 }, () => rollWindows(orm.em.fork(), SETTINGS, later)));
    const ensured = SETTINGS.assets.length * SETTINGS.durations.length * 2;
    expect(runs.every((r) => r.ensured === ensured)).toBe(true);
    expect(runs.reduce((n, r) => n + r.created, 0)).toBe(ensured);
    const dupes = await sql.query(
      "select asset, duration_secs, start_at_ms, count(*) from markets where kind = 'rfq_window' group by 1, 2, 3 having count(*) > 1",
    );
    expect(dupes.rowCount).toBe(0);
    expect((await rollWindows(orm.em.fork(), SETTINGS, later)).created).toBe(0);
  });
});
