// The per-source circuit shared by every process (src/jobs/price-circuit.ts): a 418 or 429 from a stand-in
// opens it for its whole Retry-After (seconds or an HTTP date, no cap), and until then neither this "process"
// nor another one sharing the store sends that source a request; an opening is never shortened; the database
// records it for the status endpoints. Redis (REDIS_URL) and PostgreSQL alone (no REDIS_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPriceCircuit, type PriceCircuit } from '../../jobs/price-circuit.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../testing/postgres.js';
import { startBinanceServer, type PriceServer } from '../../testing/price-servers.js';
import { createBinanceFeed } from '../../adapters/prices/binance.js';
import type { SourceCircuit } from './circuit.js';
import { sourceStatuses } from './health.js';

const M = 1_767_225_600_000;
let t: MigratedOrm;
let server: PriceServer;
const circuits: PriceCircuit[] = [];
beforeAll(async () => {
  t = await migratedOrm('circuit');
  server = await startBinanceServer(() => '97000.5');
});
afterAll(async () => {
  for (const c of circuits) await c.close();
  await server?.close();
  await t?.close();
});

const open = (redis: boolean, prefix: string) => {
  const c = createPriceCircuit({ redisUrl: redis ? TEST_REDIS_URL : undefined, prefix, forkEm: () => t.orm.em.fork() });
  circuits.push(c);
  return c.circuit;
};
const feedOf = (circuit: SourceCircuit, source: string) =>
  createBinanceFeed({ timeoutMs: 1000, retries: 2, backoffMs: 20, apiUrl: server.url, symbols: { BTC: 'BTCUSDT' }, circuit, source });

describe.each([
  ['Redis', true],
  ['PostgreSQL', false],
])('the circuit in %s', (_name, redis) => {
  it('a 418 with Retry-After: no request from any process until it passed, then requests resume', async () => {
    const prefix = uniquePrefix('circuit');
    const source = `banned-${redis}`;
    const [a, b] = [feedOf(open(redis, prefix), source), feedOf(open(redis, prefix), source)]; // two processes, one store
    server.faults.push({
      status: 418,
      headers: { 'retry-after': '2' },
      body: '{"code":-1003,"msg":"Way too much request weight used; IP banned"}',
    });
    const before = server.log.length;
    const t0 = Date.now();
    await expect(a.priceAt('BTC', M)).rejects.toMatchObject({ reason: 'banned', status: 418 });
    expect(server.log.length - before).toBe(1); // never retried
    for (const f of [a, b]) await expect(f.priceAt('BTC', M)).rejects.toMatchObject({ reason: 'banned' });
    await expect(b.probe!(['BTC'])).rejects.toMatchObject({ reason: 'banned' });
    expect(server.log.length - before).toBe(1); // neither process asked again
    const [status] = await sourceStatuses(t.orm.em.fork(), [source], Date.now());
    expect(status).toMatchObject({ state: 'banned', reason: 'banned', retryAtMs: expect.any(Number) });
    expect(status!.retryAtMs! - t0).toBeGreaterThanOrEqual(2000);
    expect(status!.fix).toMatch(/^no request is sent to banned-\w+ before /);
    await new Promise((r) => setTimeout(r, Math.max(0, status!.retryAtMs! - Date.now() + 20)));
    expect(await b.priceAt('BTC', M)).toMatchObject({ priceMicros: 97_000_500_000n });
    expect(server.log.slice(before + 1).every((e) => e.atMs >= status!.retryAtMs!)).toBe(true);
  });

  it('Retry-After in full (3 days, or an HTTP date), 60 s for a 429 without one; never shortened', async () => {
    const prefix = uniquePrefix('circuit');
    const circuit = open(redis, prefix);
    const now = Date.now();
    server.faults.push({ status: 429, headers: { 'retry-after': '259200' } });
    await expect(feedOf(circuit, `three-days-${redis}`).priceAt('BTC', M)).rejects.toMatchObject({ reason: 'rate_limited' });
    expect((await circuit.state(`three-days-${redis}`, Date.now()))!.untilMs - now).toBeGreaterThanOrEqual(259_200_000);
    const date = new Date(Math.ceil((now + 90_000) / 1000) * 1000);
    server.faults.push({ status: 418, headers: { 'retry-after': date.toUTCString() } });
    await expect(feedOf(circuit, `dated-${redis}`).priceAt('BTC', M)).rejects.toMatchObject({ reason: 'banned' });
    expect((await circuit.state(`dated-${redis}`, Date.now()))!.untilMs).toBeGreaterThanOrEqual(date.getTime() - 1);
    server.faults.push({ status: 429 });
    await expect(feedOf(circuit, `no-header-${redis}`).priceAt('BTC', M)).rejects.toMatchObject({ reason: 'rate_limited' });
    expect((await circuit.state(`no-header-${redis}`, Date.now()))!.untilMs - now).toBeGreaterThanOrEqual(60_000);
    await circuit.open(`three-days-${redis}`, now + 1000, 'rate_limited');
    expect((await circuit.state(`three-days-${redis}`, Date.now()))!.untilMs - now).toBeGreaterThanOrEqual(259_200_000);
  });

  it('a 5xx asking for more than a retry’s wait opens the circuit (`source_error`); a short one is waited for', async () => {
    const circuit = open(redis, uniquePrefix('circuit'));
    server.faults.push({ status: 503, headers: { 'retry-after': '30' } });
    await expect(feedOf(circuit, `maintenance-${redis}`).priceAt('BTC', M)).rejects.toMatchObject({ reason: 'source_error' });
    expect(await circuit.state(`maintenance-${redis}`, Date.now())).toMatchObject({ reason: 'unavailable' });
    server.faults.push({ status: 503, headers: { 'retry-after': '1' } });
    const t0 = Date.now();
    expect(await feedOf(circuit, `brief-${redis}`).priceAt('BTC', M)).toMatchObject({ priceMicros: 97_000_500_000n });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });
});
