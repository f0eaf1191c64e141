// The documented answers (src/adapters/prices/fixtures, copied from each provider's documentation) read by the
// adapters' parsers: the right observation, exact scaling, and a malformed answer refused, never guessed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pickKline } from './binance.js';
import { pickCandle } from './coinbase.js';
import { parseJsonKeepingNumbers, SourceError } from './http-json.js';
import { okxData, pickOkxCandle } from './okx.js';
import { parsePythUpdate } from './pyth.js';
import { Abstain } from './reasons.js';

const fixture = (name: string) => parseJsonKeepingNumbers(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('the documented answers', () => {
  it('binance: the klines example; only the kline asked for, once closed', () => {
    const rows = fixture('binance-klines.json');
    expect(pickKline(rows, 1_499_040_000_000, Date.now())).toEqual({
      priceMicros: 15_771n,
      observedAtMs: 1_499_644_799_999,
      sourceRef: 'kline:1499040000000',
    });
    expect(pickKline(rows, 1_499_039_999_000, Date.now())).toBeNull(); // another kline: never a stand-in
    expect(pickKline(rows, 1_499_040_000_000, 1_499_644_799_999)).toBeNull(); // not closed yet at that time
    expect(() => pickKline(parseJsonKeepingNumbers('{"code":-1121,"msg":"Invalid symbol."}'), 0, Date.now())).toThrow(SourceError);
    expect((fixture('binance-exchange-info.json') as { symbols: Array<{ status: string }> }).symbols[0]!.status).toBe('TRADING');
  });

  it('coinbase: the candles example, numbers read as their text', () => {
    const rows = fixture('coinbase-candles.json');
    const closedAt = (1_415_398_768 + 60) * 1000 - 1;
    expect(pickCandle(rows, 1_415_398_768, Date.now())).toEqual({
      priceMicros: 4_200_000n,
      observedAtMs: closedAt,
      sourceRef: 'candle:1415398768',
    });
    expect(pickCandle(rows, 1_415_398_768, closedAt)).toBeNull();
    expect(pickCandle(rows, 1_415_398_708, Date.now())).toBeNull();
    expect(
      pickCandle(parseJsonKeepingNumbers('[[1415398768, 0.32, 4.2, 0.35, 97123.456789123, 12.3]]'), 1_415_398_768, Date.now()),
    ).toMatchObject({
      priceMicros: 97_123_456_789n, // 97123.456789123 as a double is 97123.45678912299...: read as text it is exact
    });
    expect(() => pickCandle(parseJsonKeepingNumbers('{"message":"NotFound"}'), 0, Date.now())).toThrow(SourceError);
    expect(() => pickCandle(parseJsonKeepingNumbers('[[1415398768, 0.32]]'), 0, Date.now())).toThrow(SourceError);
    expect(fixture('coinbase-product.json')).toMatchObject({ id: 'BTC-USD', status: 'online' });
  });

  it('okx: the history-candles example; an uncompleted candle is not an observation; the error codes', async () => {
    const data = await okxData(fixture('okx-history-candles.json'), { timeoutMs: 1, retries: 0 }, Date.now());
    expect(pickOkxCandle(data, 1_597_026_383_085)).toEqual({
      priceMicros: 3_708_000n,
      observedAtMs: 1_597_026_384_084,
      sourceRef: 'candle1s:1597026383085',
    });
    expect(pickOkxCandle(data, 1_597_026_382_085)).toBeNull();
    expect(pickOkxCandle([['1000', '1', '1', '1', '2.5', '0', '0', '0', '0']], 1000)).toBe('pending');
    const code = (c: string) =>
      okxData({ code: c, msg: 'x', data: [] }, { timeoutMs: 1, retries: 0 }, Date.now()).catch((e: Abstain) => e.reason);
    expect([await code('51001'), await code('50011'), await code('50026')]).toEqual(['not_listed', 'rate_limited', 'source_error']);
    const inst = await okxData(fixture('okx-instruments.json'), { timeoutMs: 1, retries: 0 }, Date.now());
    expect(inst[0]).toMatchObject({ instId: 'BTC-USDT', state: 'live' });
  });

  it('pyth: the update of a feed, price and confidence × 10^expo exactly, with its publish time', () => {
    const answer = fixture('pyth-price-update.json');
    expect(parsePythUpdate(answer, 'e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43')).toEqual({
      publishTimeS: 1_724_826_310,
      obs: { priceMicros: 59_240_026_454n, observedAtMs: 1_724_826_310_000, sourceRef: 'update:1724826310', confidenceMicros: 25_283_545n },
    });
    expect(parsePythUpdate(answer, 'ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace')!.obs.priceMicros).toBe(
      1_841_360_231n,
    );
    expect(parsePythUpdate(answer, '00'.repeat(32))).toBeNull();
    expect(() => parsePythUpdate({ binary: {} }, 'e6')).toThrow(SourceError);
    expect(() =>
      parsePythUpdate(
        parseJsonKeepingNumbers('{"parsed":[{"id":"ab","price":{"price":"1.5","conf":"1","expo":-8,"publish_time":1}}]}'),
        'ab',
      ),
    ).toThrow(/malformed Pyth update/);
  });
});
