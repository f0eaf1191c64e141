// 50 consecutive 5 s windows resolved by a real service process (PostgreSQL + Redis) at PRICE_QUORUM 2 from four
// sources, each a local stand-in in its provider's documented format (nothing leaves 127.0.0.1):
//   binance    blocked from the start (every request answers 451): found by the start-up probe, never asked by a window;
//   okx        banned for 30 s in the middle (a 418 with Retry-After: 30 on the first request for a boundary past the 25th);
//   pyth       late: it publishes each second only 2.5 s after it is first asked for it (Hermes answers 404 until then);
//   chainlink  an aggregator on anvil with a round one second before each boundary, behind an L2 sequencer uptime feed.
// Every window resolves (none DISPUTED) to the outcome computed from the stand-ins' prices; the banned source receives
// no request until its Retry-After passed; each boundary is fetched once; prices:verify agrees on every window, then
// reports the difference once a stand-in's history is changed. Nothing logged carries the Pyth key or a query string.
//
// The windows are in the past (the stand-ins serve history): the service resolves 250 s of windows in a few seconds of
// wall time, where live 5 s windows would take 250 s. What is checked is the same: each window is resolved from the
// observation of its own two boundaries, asked of each source by time (never "the latest"), a late source waited for
// while the job retries (its publication delay is an hour here, so past windows still wait for it), and the ban and the
// block are wall-clock events that the circuit and the probes handle as they would on live windows.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../src/db/orm.js';
import { ensureWindows } from '../src/domain/markets/markets.js';
import { createQueueBackend, type QueueBackend } from '../src/jobs/queue-backend.js';
import { createWindowResolutionProducer } from '../src/jobs/window-resolution-producer.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../src/testing/anvil.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startOkxServer, startPythServer } from '../src/testing/price-servers-more.js';
import { startBinanceServer, type PriceServer } from '../src/testing/price-servers.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';

const N = 50;
const D = 5_000;
const PYTH_KEY = 'pyth-test-key-0123456789';
const PYTH_ID = 'e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43';
const artifact = (name: string) =>
  JSON.parse(readFileSync(new URL(`../contracts/build/${name}.json`, import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
// Boundary k = S0 + k·D (k = 0..N); window i runs from boundary i to boundary i + 1, all of them ended.
const S0 = Math.floor(Date.now() / D) * D - (N + 2) * D;
const boundary = (k: number) => S0 + k * D;
const kOf = (t: number) => Math.round((t - S0) / D);
// The market in cents: ±$5 or flat from one boundary to the next (flat windows resolve NO: a tie is down).
const cents: number[] = [9_700_000];
for (let k = 1; k <= N; k++) cents.push(cents[k - 1]! + (((k * 37) % 11) - 5) * 100);
const expected = (i: number) => (cents[i + 1]! > cents[i]! ? 'YES' : 'NO');
// Each source prices the same market with its own constant offset (they agree on every direction).
const okxText = (k: number, shift = 0) => ((cents[k]! + 11 + shift) / 100).toFixed(2);
const pythText = (k: number) => ((cents[k]! + 22) / 100).toFixed(2);
let changedBoundary = -1; // set at the end: "a stand-in's history is changed" (OKX's candle there moves $5)

let database: TestDatabase;
let chain: Anvil;
let binance: PriceServer, okx: PriceServer, pyth: PriceServer;
let svc: ServiceProcess;
let orm: Orm;
let queues: QueueBackend;
let env: Record<string, string>;
let banAt = 0;
const ids: number[] = [];
const okxVoted: number[] = []; // windows okx voted on (not banned)
const firstAsked = new Map<number, number>();

beforeAll(async () => {
  database = await createTestDatabase('pwin');
  chain = await startAnvil();
  const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS[0]), chain: anvilChain, transport: http(chain.url) }).extend(
    publicActions,
  );
  const deploy = async (c: { abi: Abi; bytecode: Hex }, args: unknown[]) =>
    (await wallet.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args }) }))
      .contractAddress!;
  const write = async (c: { abi: Abi }, address: Hex, functionName: string, args: unknown[]) =>
    wallet.waitForTransactionReceipt({ hash: await wallet.writeContract({ address, abi: c.abi, functionName, args }) });
  const AGG = artifact('MockAggregator');
  const SEQ = artifact('MockSequencerUptimeFeed');
  const agg = await deploy(AGG, [8, 'BTC / USD', 1]);
  const ks = [...Array(N + 1).keys()];
  await write(AGG, agg, 'submitMany', [ks.map((k) => BigInt(cents[k]! + 33) * 1_000_000n), ks.map((k) => BigInt(boundary(k) / 1000 - 1))]);
  const seq = await deploy(SEQ, []);
  await write(SEQ, seq, 'setStatus', [0n, BigInt(S0 / 1000 - 86_400)]);

  const fixture451 = readFileSync(new URL('../src/adapters/prices/fixtures/binance-451.json', import.meta.url), 'utf8');
  binance = await startBinanceServer(() => '97000.00');
  binance.faultFor = () => ({ status: 451, body: fixture451 });
  okx = await startOkxServer((_inst, t) => okxText(kOf(t + 1000), kOf(t + 1000) === changedBoundary ? 500 : 0));
  // Banned as Binance bans: every request within the 30 s gets 418 with the time left (none should come: see below).
  okx.faultFor = (url) => {
    const now = Date.now();
    if (!banAt && url.pathname === '/api/v5/market/history-candles' && kOf(Number(url.searchParams.get('after'))) >= 25) banAt = now;
    if (!banAt || now >= banAt + 30_000) return undefined;
    const left = String(Math.ceil((banAt + 30_000 - now) / 1000));
    return { status: 418, headers: { 'retry-after': left }, body: JSON.stringify({ code: '50011', msg: 'banned', data: [] }) };
  };
  pyth = await startPythServer((_id, t) => pythText(Math.min(N, Math.max(0, kOf(t)))), { apiKey: PYTH_KEY });
  // Late: Hermes answers 404 "Update data not found" for a second of the run until 2.5 s after it was first asked for it.
  pyth.faultFor = (url) => {
    const m = /^\/v2\/updates\/price\/(\d+)$/.exec(url.pathname);
    const t = m ? Number(m[1]) * 1000 : NaN;
    if (!(t >= S0 && t <= boundary(N))) return undefined;
    if (!firstAsked.has(t)) firstAsked.set(t, Date.now());
    return Date.now() < firstAsked.get(t)! + 2500 ? { status: 404, body: 'Update data not found' } : undefined;
  };

  const prefix = uniquePrefix('pwin');
  env = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    RATE_LIMIT_PER_MINUTE: '0',
    OPERATOR_TOKEN: 'price-windows-operator-token',
    MARKET_ASSETS: 'BTC',
    MARKET_DURATIONS: '5',
    MARKET_BETTING_CLOSE_BUFFER_MS: '1000',
    RESOLUTION_DELAY_MS: '0',
    PRICE_FEED: 'binance,okx,pyth,chainlink',
    PRICE_QUORUM: '2',
    PRICE_PROBE_EVERY_MS: '2000',
    PRICE_SOURCE_TIMEOUT_MS: '1000',
    PRICE_SOURCE_RETRIES: '1',
    PYTH_PUBLICATION_DELAY_MS: '3600000',
    CHAINLINK_MAX_AGE_MS: '3000',
    BINANCE_API_URL: binance.url,
    BINANCE_SYMBOLS: 'BTC:BTCUSDT',
    OKX_API_URL: okx.url,
    OKX_INSTRUMENTS: 'BTC:BTC-USDT',
    PYTH_API_URL: pyth.url,
    PYTH_API_KEY: PYTH_KEY,
    PYTH_FEEDS: `BTC:0x${PYTH_ID}`,
    CHAIN_RPC_URL: chain.url,
    CHAINLINK_FEEDS: `BTC:${agg}`,
    CHAINLINK_SEQUENCER_FEED: seq,
  };
  svc = await startServiceProcess({ env });
  orm = await createOrm({ databaseUrl: database.url });
  queues = await createQueueBackend({ prefix, redisUrl: TEST_REDIS_URL, databaseUrl: database.url });
}, 90_000);

afterAll(async () => {
  await queues?.close();
  await orm?.close(true);
  await svc?.stop();
  for (const s of [binance, okx, pyth]) await s?.close();
  await chain?.stop();
  await database?.drop();
});

const get = async (path: string, auth = false) =>
  (await fetch(`${svc.baseUrl}${path}`, auth ? { headers: { authorization: `Bearer ${env.OPERATOR_TOKEN}` } } : {})).json();
const market = async (id: number) => (await get(`/v1/markets/${id}`)).market;
/** prices:verify as an operator runs it, in a process of its own (the stand-ins answer from this one's event loop). */
const verify = (marketIds: number[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/prices-verify.ts', ...marketIds.map(String)],
      { env: { ...env, PATH: process.env.PATH, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (_err, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });

describe('50 consecutive 5 s windows at quorum 2: one source blocked, one banned for 30 s, one late', () => {
  it('every window resolves to the outcome of the stand-ins’ prices; the ban is honoured; each boundary is fetched once', async () => {
    await ensureWindows(
      orm.em.fork(),
      [...Array(N).keys()].map((i) => ({ asset: 'BTC', durationSecs: 5, startAtMs: boundary(i) })),
    );
    const rows = await orm.em
      .fork()
      .execute<Array<{ market_id: string }>>(
        `select market_id from markets where kind = 'rfq_window' and duration_secs = 5 and start_at_ms >= ${S0} and start_at_ms < ${boundary(N)} order by start_at_ms`,
      );
    ids.push(...rows.map((r) => Number(r.market_id)));
    expect(ids).toHaveLength(N);
    const producer = createWindowResolutionProducer(queues);
    for (const id of ids) await producer.enqueue(id);
    await producer.close();
    const t0 = Date.now();
    await expect
      .poll(async () => (await Promise.all(ids.map(market))).filter((m) => m.status !== 'CLOSED').length, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe(N);
    const resolvedInMs = Date.now() - t0;

    const windows = await Promise.all(ids.map(market));
    expect(windows.map((m) => m.status)).toEqual(Array(N).fill('RESOLVED'));
    expect(windows.map((m) => m.outcome)).toEqual([...Array(N).keys()].map(expected));
    const votes = (m: { sources: Array<{ source: string; vote: string; abstained_reason: string | null }> }) =>
      Object.fromEntries(m.sources.map((x) => [x.source, x.abstained_reason ?? x.vote]));
    for (const [i, m] of windows.entries()) {
      const v = votes(m);
      expect(v.binance, `window ${i}`).toBe('blocked');
      expect(v.chainlink, `window ${i}`).toBe(expected(i));
      expect([expected(i), 'banned'], `window ${i} okx`).toContain(v.okx);
      expect([expected(i), 'not_published_yet'], `window ${i} pyth`).toContain(v.pyth);
    }
    okxVoted.push(...windows.flatMap((m, i) => (votes(m).okx === 'banned' ? [] : [i])));
    const banned = windows.filter((m) => votes(m).okx === 'banned');
    expect(banned.length).toBeGreaterThan(0); // the windows resolved during the ban: by chainlink and the late pyth
    for (const m of banned) expect(votes(m).pyth).toBe(m.outcome);
    console.log(`resolved ${N} windows in ${resolvedInMs} ms; ${banned.length} during okx's ban`);

    // The blocked source was never asked for a kline: only its probes went out (each answered 451).
    expect(binance.requests.filter((u) => u.pathname === '/api/v3/klines')).toEqual([]);
    // The banned source received no request until its Retry-After had passed, from any job or probe: every process
    // checks the shared circuit before each request. Only requests already on their way when the 418 was answered
    // (sent by concurrent jobs in the same instant) may land just after it.
    await expect.poll(() => okx.log.filter((e) => e.atMs >= banAt + 30_000).length, { timeout: 40_000, interval: 500 }).toBeGreaterThan(0);
    const duringBan = okx.log.filter((e) => e.atMs > banAt && e.atMs < banAt + 30_000);
    expect(duringBan.filter((e) => e.atMs > banAt + 250)).toEqual([]);
    console.log(
      `okx: ${duringBan.length} request(s) already in flight when the 418 was answered; the next one ${okx.log.find((e) => e.atMs >= banAt + 30_000)!.atMs - banAt} ms after it`,
    );
    // One fetch per boundary: no boundary's candle was answered twice.
    const candles = okx.log
      .filter((e) => e.url.pathname === '/api/v5/market/history-candles' && e.status === 200)
      .map((e) => e.url.searchParams.get('after'));
    expect(new Set(candles).size).toBe(candles.length);
    const updates = pyth.log
      .filter((e) => /\/v2\/updates\/price\/\d+$/.test(e.url.pathname) && e.status === 200)
      .map((e) => e.url.pathname);
    expect(new Set(updates).size).toBe(updates.length);

    // The states: binance blocked with its fix, okx back to ok once a probe answered after the ban.
    await expect
      .poll(async () => (await get('/readyz')).price_sources.find((s: { source: string }) => s.source === 'okx').state, { timeout: 10_000 })
      .toBe('ok');
    const ready = await get('/readyz');
    expect(ready.price_sources.find((s: { source: string }) => s.source === 'binance')).toMatchObject({
      state: 'blocked',
      fix: expect.stringContaining('BINANCE_API_URL=https://data-api.binance.vision'),
    });
    const status = await get('/v1/admin/status', true);
    expect(status.components.find((c: { name: string }) => c.name === 'binance')).toMatchObject({ state: 'blocked' });
    expect(status.resolution).toMatchObject({ overdue: 0, disputed: 0 });
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^crfq_component_up\{component="binance",kind="price_source"\} 0$/m);
    expect(metrics).toMatch(/^crfq_windows_disputed 0$/m);
    // Nothing logged carries the key or a request's query string.
    const output = svc.rawOutput.join('\n');
    expect(output).not.toContain(PYTH_KEY);
    for (const s of [binance, okx, pyth]) expect(output).not.toMatch(new RegExp(`${s.url.replace(/[.]/g, '\\.')}/\\S*\\?`));
  }, 120_000);

  it('prices:verify agrees on every window, then reports the difference once a stand-in’s history changed', async () => {
    const all = await verify(ids);
    expect(all.status, all.stdout + all.stderr).toBe(0);
    expect(all.stdout.match(/=> agrees/g)).toHaveLength(N);
    expect(all.stdout).toMatch(/binance: missing \(blocked\), no observation recorded/);
    // OKX now says the boundary between two windows it voted on was $5 higher: window j's close and window j + 1's open.
    const j = okxVoted.find((i) => okxVoted.includes(i + 1))!;
    changedBoundary = j + 1;
    const changed = await verify([ids[j]!, ids[j + 1]!]);
    expect(changed.status, changed.stdout + changed.stderr).toBe(1);
    expect(changed.stdout.match(/okx close candle1s:\d+: stored .*; DIFFERS: now /g)).toHaveLength(1);
    expect(changed.stdout.match(/okx open candle1s:\d+: stored .*; DIFFERS: now /g)).toHaveLength(1);
    expect(changed.stdout.match(/=> differs/g)).toHaveLength(2);
  }, 90_000);
});
