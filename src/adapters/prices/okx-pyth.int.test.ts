// The okx and pyth price sources against local stand-ins answering in each provider's documented format
// (src/testing/price-servers-more.ts): the boundary's own 1 s candle or Pyth second, scaled exactly (Pyth's
// price and confidence × 10^expo); a missing one asked again, then abstaining, never replaced; Pyth's key sent
// as a bearer token, never in the URL; the listing probes; lookup by identifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOkxServer, startPythServer } from '../../testing/price-servers-more.js';
import type { PriceServer } from '../../testing/price-servers.js';
import { memoryCircuit } from '../../domain/prices/circuit.js';
import { createOkxFeed } from './okx.js';
import { createPythFeed } from './pyth.js';
import type { Abstain } from './reasons.js';

const M = 1_767_225_600_000;
const priceOf = (ms: number) => `${97_000 + (ms - M) / 1000}.123456789`;
const micros = (ms: number) => BigInt(97_000 + (ms - M) / 1000) * 1_000_000n + 123_456n;
const HTTP = { timeoutMs: 400, retries: 1, backoffMs: 20 };
const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'observed',
    (e: Abstain) => e.reason,
  );
const BTC_ID = '0xe62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43';

describe('okx (stand-in)', () => {
  let server: PriceServer;
  let gapAt = -1;
  beforeAll(async () => {
    server = await startOkxServer((inst, t) => (inst === 'BTC-USDT' && t !== gapAt ? priceOf(t) : null), {
      listed: (i) => i === 'BTC-USDT',
    });
  });
  afterAll(() => server?.close());
  const feed = (now = () => Date.now(), circuit = memoryCircuit()) =>
    createOkxFeed({ ...HTTP, apiUrl: server.url, instruments: { BTC: 'BTC-USDT', ETH: 'ETH-USDT' }, now, circuit });

  it('the 1 s candle that closed at the boundary, asked with after = its open + 1000', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({
      priceMicros: micros(at - 1000),
      observedAtMs: at - 1,
      sourceRef: `candle1s:${at - 1000}`,
    });
    expect(Object.fromEntries(server.requests.at(-1)!.searchParams)).toEqual({
      instId: 'BTC-USDT',
      bar: '1s',
      after: String(at),
      limit: '1',
    });
    expect(await feed().lookup!('BTC', `candle1s:${at - 1000}`)).toMatchObject({ priceMicros: micros(at - 1000) });
  });

  it('the stand-in answers the older candle when the boundary one is missing: it is never used', async () => {
    const at = M + 30_000;
    gapAt = at - 1000;
    expect(await reasonOf(feed(() => at + 1_000).priceAt('BTC', at))).toBe('not_published_yet');
    expect(await reasonOf(feed(() => at + 60_000).priceAt('BTC', at))).toBe('boundary_not_published');
    gapAt = -1;
  });

  it('the probe: live, or code 51001; code 50011 (HTTP 200) holds the circuit for OKX’s 2 s window', async () => {
    expect(await feed().probe!(['BTC', 'ETH'])).toEqual({ listed: ['BTC'], unlisted: ['ETH'] });
    const circuit = memoryCircuit();
    server.faults.push({ status: 200, body: JSON.stringify({ code: '50011', msg: 'Rate limit reached.', data: [] }) });
    await expect(feed(Date.now, circuit).priceAt('BTC', M + 60_000)).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(await circuit.state('okx', Date.now())).toMatchObject({ reason: 'rate_limited' });
  });
});

describe('pyth (stand-in)', () => {
  let server: PriceServer;
  const quiet = new Set<number>(); // seconds without an update
  beforeAll(async () => {
    server = await startPythServer((id, t) => (id === BTC_ID.slice(2) && !quiet.has(t / 1000) ? priceOf(t) : null), {
      apiKey: 'k3y-secret',
      listed: (id) => id === BTC_ID.slice(2),
    });
  });
  afterAll(() => server?.close());
  const feed = (now = () => Date.now(), apiKey: string | null = 'k3y-secret') =>
    createPythFeed({ ...HTTP, apiUrl: server.url, feeds: { BTC: BTC_ID, ETH: `0x${'ab'.repeat(32)}` }, apiKey: apiKey ?? undefined, now });

  it('the update of the boundary second: price and confidence × 10^expo, observed at its publish time', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({
      priceMicros: micros(at),
      observedAtMs: at,
      sourceRef: `update:${at / 1000}`,
      confidenceMicros: 25_283_545n, // 2528354539 × 10^-8
    });
    const q = server.requests.at(-1)!;
    expect(q.pathname).toBe(`/v2/updates/price/${at / 1000}`);
    expect(q.searchParams.get('ids[]')).toBe(BTC_ID);
    expect(q.search).not.toContain('k3y'); // the key travels in the Authorization header only
    expect(await feed().lookup!('BTC', `update:${at / 1000}`)).toEqual(await feed().priceAt('BTC', at));
  });

  it('a second without an update: Hermes answers a later one, which is never taken for it', async () => {
    const at = M + 90_000;
    quiet.add(at / 1000);
    await expect(feed().priceAt('BTC', at)).rejects.toMatchObject({ reason: 'boundary_not_published' });
    quiet.delete(at / 1000);
  });

  it('nothing yet is asked again until the delay; no key is `blocked`; an unknown feed is `not_listed`', async () => {
    const soon = Date.now() + 5_000; // a second Hermes has nothing for yet (the stand-in publishes up to now)
    const at = Math.floor(soon / 1000) * 1000;
    expect(await reasonOf(feed(() => at + 1_000).priceAt('BTC', at))).toBe('not_published_yet');
    expect(await reasonOf(feed(() => at + 20_000).priceAt('BTC', at))).toBe('boundary_not_published');
    await expect(feed(Date.now, null).priceAt('BTC', M + 60_000)).rejects.toMatchObject({ reason: 'blocked', status: 401 });
    expect(await reasonOf(feed().priceAt('ETH', M + 60_000))).toBe('not_listed');
    expect(await feed().probe!(['BTC', 'ETH', 'XRP'])).toEqual({ listed: ['BTC'], unlisted: ['ETH', 'XRP'] });
  });
});
