// The binance and coinbase price sources against local stand-ins answering in each provider's documented
// format (src/testing/price-servers.ts): the boundary's own kline or candle and exact scaling; a missing or late
// boundary is asked again, then abstains, and is never replaced by an older observation; 5xx and stalls are
// retried, 451 is `blocked` at once; the listing probes; lookup by identifier; a source down never stops the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBinanceServer, startCoinbaseServer, type PriceServer } from '../../testing/price-servers.js';
import { createBinanceFeed } from './binance.js';
import { createCoinbaseFeed } from './coinbase.js';
import { createQuorumFeed } from '../../domain/prices/read.js';
import { Abstain } from './reasons.js';

const M = 1_767_225_600_000; // a whole minute, in the past
// A distinct price per second: 97000 + s/1000 with 8 decimals (Binance's text), e.g. "97001.12345678".
const priceOf = (ms: number) => `${97_000 + (ms - M) / 1000}.12345678`;
const micros = (ms: number) => BigInt(97_000 + (ms - M) / 1000) * 1_000_000n + 123_456n;
const HTTP = { timeoutMs: 400, retries: 2, backoffMs: 20 };
const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'observed',
    (e: Abstain) => e.reason,
  );

describe('binance (stand-in)', () => {
  let server: PriceServer;
  let gapAt = -1;
  let lateFrom = Infinity; // klines opened at or after this are not published yet
  beforeAll(async () => {
    server = await startBinanceServer((symbol, t) => (symbol === 'BTCUSDT' && t !== gapAt ? priceOf(t) : null), {
      visible: (_s, t) => t < lateFrom,
      listed: (s) => s === 'BTCUSDT' || s === 'ETHUSDT',
    });
  });
  afterAll(() => server?.close());
  const feed = (now = () => Date.now()) =>
    createBinanceFeed({ ...HTTP, apiUrl: server.url, symbols: { BTC: 'BTCUSDT', ETH: 'ETHUSDT', HYPE: 'HYPEUSDT' }, now });

  it('asks for the boundary kline only and scales its close exactly', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({
      priceMicros: micros(at - 1000),
      observedAtMs: at - 1,
      sourceRef: `kline:${at - 1000}`,
    });
    expect(Object.fromEntries(server.requests.at(-1)!.searchParams)).toEqual({
      symbol: 'BTCUSDT',
      interval: '1s',
      startTime: String(at - 1000),
      endTime: String(at - 1),
      limit: '1',
    });
    expect(await feed().priceAt('BTC', at + 500)).toMatchObject({ sourceRef: `kline:${at - 1000}` }); // between seconds: the last closed one
    const before = server.requests.length;
    expect(await reasonOf(feed().priceAt('DOGE', at))).toBe('not_listed'); // no symbol: no request
    expect(server.requests.length).toBe(before);
    expect(await feed().lookup!('BTC', `kline:${at - 1000}`)).toEqual(await feed().priceAt('BTC', at));
  });

  it('a missing boundary second is asked again until the publication delay passed, then abstains: never the kline before', async () => {
    const at = M + 30_000;
    gapAt = at - 1000;
    expect(await reasonOf(feed(() => at + 2_000).priceAt('BTC', at))).toBe('not_published_yet');
    expect(await reasonOf(feed(() => at + 10_000).priceAt('BTC', at))).toBe('boundary_not_published');
    gapAt = -1;
    lateFrom = at - 1000; // late: Binance has not published it yet
    expect(await reasonOf(feed().priceAt('BTC', at))).toBe('boundary_not_published');
    expect(await reasonOf(feed(() => at + 3_000).priceAt('BTC', at))).toBe('not_published_yet');
    lateFrom = Infinity; // ... now it has
    expect(await feed(() => at + 3_000).priceAt('BTC', at)).toMatchObject({ sourceRef: `kline:${at - 1000}` });
    // A kline not closed yet at `now` is not published: no request is even made.
    const n = server.requests.length;
    expect(await reasonOf(feed(() => at - 500).priceAt('BTC', at))).toBe('not_published_yet');
    expect(server.requests.length).toBe(n);
  });

  it('5xx then success is a retry; a stall is given up and retried; malformed JSON; 451 is blocked at once', async () => {
    const at = M + 10_000;
    const before = server.requests.length;
    server.faults.push({ status: 502 }, { status: 503 });
    expect((await feed().priceAt('BTC', at))!.priceMicros).toBe(micros(at - 1000));
    expect(server.requests.length - before).toBe(3);
    server.faults.push('stall');
    expect((await feed().priceAt('BTC', at))!.priceMicros).toBe(micros(at - 1000));
    server.faults.push('stall', 'stall', 'stall');
    await expect(feed().priceAt('BTC', at)).rejects.toMatchObject({
      reason: 'timeout',
      message: 'no answer within 400 ms (after 3 tries)',
    });
    server.faults.push('garbage');
    await expect(feed().priceAt('BTC', at)).rejects.toMatchObject({ reason: 'malformed_answer' });
    server.faults.push('empty');
    expect(await reasonOf(feed().priceAt('BTC', at))).toBe('boundary_not_published');
    const n = server.requests.length;
    server.faults.push({ status: 451, body: '{"code":0,"msg":"Service unavailable from a restricted location"}' });
    await expect(feed().priceAt('BTC', at)).rejects.toMatchObject({ reason: 'blocked', status: 451 });
    expect(server.requests.length - n).toBe(1);
  });

  it('the probe: exchangeInfo per symbol, TRADING or -1121 Invalid symbol', async () => {
    expect(await feed().probe!(['BTC', 'ETH', 'HYPE', 'DOGE'])).toEqual({ listed: ['BTC', 'ETH'], unlisted: ['HYPE', 'DOGE'] });
    expect(server.requests.at(-1)!.pathname).toBe('/api/v3/exchangeInfo');
    server.faults.push({ status: 451 });
    await expect(feed().probe!(['BTC'])).rejects.toMatchObject({ reason: 'blocked' });
  });
});

describe('coinbase (stand-in)', () => {
  let server: PriceServer;
  let lateFrom = Infinity; // candles starting at or after this are not published yet
  beforeAll(async () => {
    server = await startCoinbaseServer((product, t) => (product === 'BTC-USD' && t !== M + 120_000 ? priceOf(t) : null), {
      listed: (p) => p === 'BTC-USD',
      visible: (_p, t) => t < lateFrom,
    });
  });
  afterAll(() => server?.close());
  const feed = (now = () => Date.now()) =>
    createCoinbaseFeed({ ...HTTP, apiUrl: server.url, products: { BTC: 'BTC-USD', ETH: 'ETH-USD' }, now });

  it('exactly on a minute the candle that ended there; between minutes the last ended one; asked for that bucket only', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({ priceMicros: micros(M), observedAtMs: at - 1, sourceRef: `candle:${M / 1000}` });
    expect(Object.fromEntries(server.requests.at(-1)!.searchParams)).toEqual({
      granularity: '60',
      start: new Date(M).toISOString(),
      end: new Date(M + 60_000).toISOString(),
    });
    expect((await feed().priceAt('BTC', at + 30_000))!.sourceRef).toBe(`candle:${M / 1000}`);
    expect((await feed().priceAt('BTC', at + 59_999))!.sourceRef).toBe(`candle:${(M + 60_000) / 1000}`);
    expect(await feed().lookup!('BTC', `candle:${M / 1000}`)).toMatchObject({ priceMicros: micros(M) });
  });

  it('a minute without its candle abstains after the publication delay, never the minute before; a late candle is waited for', async () => {
    const at = M + 180_000; // the candle of M+120 s is missing
    expect(await reasonOf(feed(() => at + 60_000).priceAt('BTC', at))).toBe('not_published_yet');
    expect(await reasonOf(feed(() => at + 120_000).priceAt('BTC', at))).toBe('boundary_not_published');
    lateFrom = M + 240_000; // the candle ending at M+300 s is late
    expect(await reasonOf(feed(() => M + 305_000).priceAt('BTC', M + 300_000))).toBe('not_published_yet');
    lateFrom = Infinity;
    expect(await feed(() => M + 310_000).priceAt('BTC', M + 300_000)).toMatchObject({ sourceRef: `candle:${(M + 240_000) / 1000}` });
  });

  it('the probe: the product online, or 404 NotFound; 429 and down', async () => {
    expect(await feed().probe!(['BTC', 'ETH', 'XRP'])).toEqual({ listed: ['BTC'], unlisted: ['ETH', 'XRP'] });
    server.down = true;
    await expect(feed().priceAt('BTC', M + 60_000)).rejects.toMatchObject({ reason: 'source_error', message: 'HTTP 503 (after 3 tries)' });
    server.down = false;
    server.faults.push({ status: 429 });
    await expect(feed().priceAt('BTC', M + 60_000)).rejects.toMatchObject({ reason: 'rate_limited' });
  });
});

describe('a source down never stops the others', () => {
  it('the quorum reader gets binance while coinbase stalls, with the failure on record as a code', async () => {
    const b = await startBinanceServer((_s, t) => priceOf(t));
    const c = await startCoinbaseServer((_p, t) => priceOf(t));
    try {
      c.faults.push('stall', 'stall', 'stall', 'stall', 'stall', 'stall');
      const q = createQuorumFeed(
        [
          createBinanceFeed({ ...HTTP, apiUrl: b.url, symbols: { BTC: 'BTCUSDT' } }),
          createCoinbaseFeed({ ...HTTP, apiUrl: c.url, products: { BTC: 'BTC-USD' } }),
        ],
        1,
        60_000,
      );
      const { readings, health } = await q.read('BTC', M, M + 60_000);
      expect(readings[0]).toMatchObject({
        source: 'binance',
        open: { priceMicros: micros(M - 1000) },
        close: { priceMicros: micros(M + 59_000) },
      });
      expect(readings[1]).toMatchObject({
        source: 'coinbase',
        open: null,
        close: null,
        reason: 'timeout',
        error: 'no answer within 400 ms (after 3 tries)',
      });
      expect(health.map((h) => [h.source, h.requests, h.failures])).toEqual([
        ['binance', 2, 0],
        ['coinbase', 2, 2],
      ]);
    } finally {
      await b.close();
      await c.close();
    }
  });
});
