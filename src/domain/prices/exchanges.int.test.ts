// The binance and coinbase price sources against local HTTP servers answering in each provider's documented
// format (src/testing/price-servers.ts; fixtures in src/domain/prices/fixtures): exact scaling, the right
// kline or candle at a boundary, an empty answer, 429 then success, a 10 s stall (the client gives up first),
// malformed JSON and a source that is down: each gives a reading, a retry or no reading, never a wrong price.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBinanceServer, startCoinbaseServer, type PriceServer } from '../../testing/price-servers.js';
import { createBinanceFeed, pickKline } from './binance.js';
import { createCoinbaseFeed, pickCandle } from './coinbase.js';
import { parseJsonKeepingNumbers, SourceError } from './http-json.js';
import { createQuorumFeed } from './read.js';

const fixture = (name: string) => parseJsonKeepingNumbers(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const M = 1_767_225_600_000; // a whole minute
// A distinct price per second: 97000 + s/1000 with 8 decimals (Binance's text), e.g. "97001.12345678".
const priceOf = (ms: number) => `${97_000 + (ms - M) / 1000}.12345678`;
const micros = (ms: number) => BigInt(97_000 + (ms - M) / 1000) * 1_000_000n + 123_456n;
const HTTP = { timeoutMs: 400, retries: 2, backoffMs: 20 };

describe('the documented answers', () => {
  it('binance: the klines example of the documentation', () => {
    const rows = fixture('binance-klines.json');
    expect(pickKline(rows, 1_499_644_799_999, Date.now())).toEqual({
      priceMicros: 15_771n,
      observedAtMs: 1_499_644_799_999,
      sourceRef: 'kline:1499040000000',
    });
    expect(pickKline(rows, 1_499_644_799_998, Date.now())).toBeNull(); // not closed yet at that time
  });

  it('coinbase: the candles example of the documentation, numbers read as their text', () => {
    const rows = fixture('coinbase-candles.json');
    const closedAt = (1_415_398_768 + 60) * 1000 - 1;
    expect(pickCandle(rows, closedAt, Date.now())).toEqual({ priceMicros: 4_200_000n, observedAtMs: closedAt, sourceRef: 'candle:1415398768' });
    expect(pickCandle(rows, closedAt - 1, Date.now())).toBeNull();
    expect(pickCandle(parseJsonKeepingNumbers('[[1415398768, 0.32, 4.2, 0.35, 97123.456789123, 12.3]]'), closedAt, Date.now())).toMatchObject({
      priceMicros: 97_123_456_789n, // 97123.456789123 as a double is 97123.45678912299...: read as text it is exact
    });
    expect(() => pickCandle(parseJsonKeepingNumbers('{"message":"NotFound"}'), closedAt, Date.now())).toThrow(SourceError);
    expect(() => pickCandle(parseJsonKeepingNumbers('[[1415398768, 0.32]]'), closedAt, Date.now())).toThrow(SourceError);
  });
});

describe('binance (local server)', () => {
  let server: PriceServer;
  let gapAt = -1;
  beforeAll(async () => {
    server = await startBinanceServer((symbol, t) => (symbol === 'BTCUSDT' && t !== gapAt ? priceOf(t) : null));
  });
  afterAll(() => server?.close());
  const feed = () => createBinanceFeed({ ...HTTP, apiUrl: server.url, symbols: { BTC: 'BTCUSDT' } });

  it('asks the documented query and scales the close exactly', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({ priceMicros: micros(at - 1000), observedAtMs: at - 1, sourceRef: `kline:${at - 1000}` });
    const q = server.requests.at(-1)!;
    expect(q.pathname).toBe('/api/v3/klines');
    expect(Object.fromEntries(q.searchParams)).toEqual({
      symbol: 'BTCUSDT',
      interval: '1s',
      startTime: String(at - 1000 - 60_000),
      endTime: String(at - 1),
      limit: '1000',
    });
    expect(await feed().priceAt('DOGE', at)).toBeNull(); // an asset without a symbol: no request
  });

  it('exactly on a second: the kline that closed just before; between two klines: the last closed one', async () => {
    const s = M + 30_000;
    expect((await feed().priceAt('BTC', s))!.sourceRef).toBe(`kline:${s - 1000}`);
    expect((await feed().priceAt('BTC', s + 500))!.sourceRef).toBe(`kline:${s - 1000}`);
    expect(await feed().priceAt('BTC', s + 999)).toEqual({ priceMicros: micros(s), observedAtMs: s + 999, sourceRef: `kline:${s}` });
    gapAt = s - 1000; // a second without a kline: the one before
    expect((await feed().priceAt('BTC', s))!.sourceRef).toBe(`kline:${s - 2000}`);
    gapAt = -1;
  });

  it('an empty answer is no reading; 429 then success is a retry; malformed JSON is no reading', async () => {
    server.faults.push('empty');
    expect(await feed().priceAt('BTC', M + 10_000)).toBeNull();
    const before = server.requests.length;
    server.faults.push({ status: 429 }, { status: 502 });
    expect((await feed().priceAt('BTC', M + 10_000))!.priceMicros).toBe(micros(M + 9000));
    expect(server.requests.length - before).toBe(3);
    server.faults.push('garbage');
    await expect(feed().priceAt('BTC', M + 10_000)).rejects.toThrow(/not JSON/);
  });

  it('a 10 s stall: the client gives up after its timeout and retries; stalling every try gives no reading', async () => {
    // The stalled request would answer [] (no reading) after 10 s: a price means the client gave up and retried.
    server.faults.push('stall');
    expect((await feed().priceAt('BTC', M + 10_000))!.priceMicros).toBe(micros(M + 9000));
    server.faults.push('stall', 'stall', 'stall');
    await expect(feed().priceAt('BTC', M + 10_000)).rejects.toThrow(/no answer within 400 ms \(after 3 tries\)/);
  });
});

describe('coinbase (local server)', () => {
  let server: PriceServer;
  beforeAll(async () => {
    server = await startCoinbaseServer((product, t) => (product === 'BTC-USD' && t !== M + 120_000 ? priceOf(t) : null));
  });
  afterAll(() => server?.close());
  const feed = () => createCoinbaseFeed({ ...HTTP, apiUrl: server.url, products: { BTC: 'BTC-USD' } });

  it('asks the documented query; exactly on a minute the candle that ended there, between candles the last ended one', async () => {
    const at = M + 60_000;
    expect(await feed().priceAt('BTC', at)).toEqual({ priceMicros: micros(M), observedAtMs: at - 1, sourceRef: `candle:${M / 1000}` });
    const q = server.requests.at(-1)!;
    expect(q.pathname).toBe('/products/BTC-USD/candles');
    expect(Object.fromEntries(q.searchParams)).toEqual({
      granularity: '60',
      start: new Date(at - 300_000).toISOString(),
      end: new Date(at).toISOString(),
    });
    expect((await feed().priceAt('BTC', at + 30_000))!.sourceRef).toBe(`candle:${M / 1000}`);
    expect((await feed().priceAt('BTC', at + 59_999))!.sourceRef).toBe(`candle:${(M + 60_000) / 1000}`);
    // No trades in the minute M+120 s (no candle published): the one before.
    expect((await feed().priceAt('BTC', M + 180_000))!.sourceRef).toBe(`candle:${(M + 60_000) / 1000}`);
  });

  it('empty, 429 then success, malformed, down', async () => {
    server.faults.push('empty');
    expect(await feed().priceAt('BTC', M + 60_000)).toBeNull();
    server.faults.push({ status: 429 });
    expect((await feed().priceAt('BTC', M + 60_000))!.priceMicros).toBe(micros(M));
    server.faults.push('garbage');
    await expect(feed().priceAt('BTC', M + 60_000)).rejects.toThrow(SourceError);
    server.down = true;
    await expect(feed().priceAt('BTC', M + 60_000)).rejects.toThrow(/HTTP 503 \(after 3 tries\)/);
    server.down = false;
  });
});

describe('a source down never stops the others', () => {
  it('the quorum reader gets binance while coinbase stalls, with the failure on record', async () => {
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
      expect(readings[0]).toMatchObject({ source: 'binance', open: { priceMicros: micros(M - 1000) }, close: { priceMicros: micros(M + 59_000) } });
      expect(readings[1]).toMatchObject({ source: 'coinbase', open: null, close: null, error: 'no answer within 400 ms (after 3 tries)' });
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
