// The deposit listener's adaptive eth_getLogs range (src/domain/settlement/onchain/log-range.ts), and the
// recognition of providers' range errors as viem throws them.
import { HttpRequestError, InvalidParamsRpcError, LimitExceededRpcError, RpcRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { GROW_AFTER, LogRange, isLogRangeError } from './log-range.js';

describe('LogRange', () => {
  it('halves on a refusal down to one block, then reports that nothing is left', () => {
    const r = new LogRange(500);
    const sizes = [r.blocks];
    while (r.refused()) sizes.push(r.blocks);
    expect(sizes).toEqual([500, 250, 125, 62, 31, 15, 7, 3, 1]);
    expect(r.blocks).toBe(1);
  });

  it('grows back by doubling after answered ranges in a row, never above the configured range', () => {
    const r = new LogRange(100);
    r.refused();
    r.refused(); // 25
    for (let i = 0; i < GROW_AFTER - 1; i++) r.ok();
    expect(r.blocks).toBe(25);
    r.ok();
    expect(r.blocks).toBe(50);
    for (let i = 0; i < 10 * GROW_AFTER; i++) r.ok();
    expect(r.blocks).toBe(100);
  });

  it('a refusal restarts the count of answered ranges', () => {
    const r = new LogRange(64);
    r.refused(); // 32
    for (let i = 0; i < GROW_AFTER - 1; i++) r.ok();
    r.refused(); // 16
    r.ok();
    expect(r.blocks).toBe(16);
  });

  it('settles on what a provider with a fixed cap accepts', () => {
    const cap = 5; // QuickNode's free plan
    const r = new LogRange(500);
    let refusals = 0;
    for (let i = 0; i < 200; i++) {
      if (r.blocks > cap) {
        r.refused();
        refusals++;
      } else r.ok();
    }
    expect(r.blocks).toBeLessThanOrEqual(cap);
    // It probes upwards now and then, not on every range.
    expect(refusals).toBeLessThan(200 / GROW_AFTER);
  });
});

describe('isLogRangeError', () => {
  const rpc = (code: number, message: string) => new RpcRequestError({ body: {}, error: { code, message }, url: 'http://x' });
  it.each([
    [
      'Alchemy size',
      new InvalidParamsRpcError(rpc(-32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range')),
    ],
    ['Alchemy range', rpc(-32600, 'You can make eth_getLogs requests with up to a 10 block range.')],
    ['Infura', new LimitExceededRpcError(rpc(-32005, 'query returned more than 10000 results'))],
    ['QuickNode', new HttpRequestError({ url: 'http://x', status: 413, details: 'eth_getLogs is limited to a 5 range' })],
  ])('%s', (_name, err) => expect(isLogRangeError(err)).toBe(true));

  it('other errors are not range errors', () => {
    expect(isLogRangeError(new HttpRequestError({ url: 'http://x', status: 502, details: 'Bad Gateway' }))).toBe(false);
    expect(isLogRangeError(rpc(-32000, 'header not found'))).toBe(false);
    expect(isLogRangeError(new Error('fetch failed'))).toBe(false);
  });
});
