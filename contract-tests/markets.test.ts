// RFQ market windows through the generated client: every documented status of getCurrentMarket and
// lookupMarket but 500 and 503 (pending), and the conditional GET (ETag, 304) of the public reads
// (getCurrentMarket, lookupMarket, getRfqTypedData; getMarket's: market-resolution.test.ts). Every response is checked against the spec.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { getCurrentMarket, getRfqTypedData, lookupMarket } from '../generated/openapi/sdk.gen.ts';
import { expectErrorBody, startContractService, type ContractService } from './harness.ts';

const HORIZON_MS = 3_600_000;
let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('markets', {
    env: {
      RATE_LIMIT_PER_MINUTE: '0',
      MARKET_ASSETS: 'BTC,ETH',
      MARKET_DURATIONS: '60,300',
      MARKET_BETTING_CLOSE_BUFFER_MS: '10000',
      MARKET_LOOKUP_HORIZON_MS: String(HORIZON_MS),
    },
  });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

const align = (ms: number, secs: number) => Math.floor(ms / (secs * 1000)) * secs * 1000;

describe('getCurrentMarket', () => {
  it('200: the current window, with Cache-Control up to its betting close', async () => {
    const api = svc.client();
    const { data, checked } = await api.run(getCurrentMarket({ client: api.client, query: { asset: 'BTC', duration_secs: 300 } }), {
      status: 200,
    });
    const m = data!.market;
    expect(m.asset).toBe('BTC');
    expect(m.duration_secs).toBe(300);
    expect(m.start_at_ms % 300_000).toBe(0);
    expect(m.betting_closes_at_ms).toBe(m.start_at_ms + 290_000);
    expect(m.betting_closes_at_ms).toBeGreaterThan(Date.now() - 1000);
    expect(checked.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  });

  it('404 MARKET_NOT_FOUND: an asset or a duration not offered', async () => {
    const api = svc.client();
    const { checked } = await api.run(getCurrentMarket({ client: api.client, query: { asset: 'DOGE', duration_secs: 300 } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
    expectErrorBody(checked.body);
    await api.run(getCurrentMarket({ client: api.client, query: { asset: 'BTC', duration_secs: 900 } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
  });

  it('400 VALIDATION_FAILED: a malformed asset', async () => {
    await svc.call('getCurrentMarket', { query: { asset: 'btc', duration_secs: 300 } }, { status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('lookupMarket', () => {
  it('200: the same market_id as getCurrentMarket for the same window; Cache-Control by window state', async () => {
    const api = svc.client();
    const { data: cur } = await api.run(getCurrentMarket({ client: api.client, query: { asset: 'ETH', duration_secs: 60 } }), {
      status: 200,
    });
    const { data, checked } = await api.run(
      lookupMarket({ client: api.client, query: { asset: 'ETH', duration_secs: 60, window_start_ms: cur!.market.start_at_ms } }),
      { status: 200 },
    );
    expect(data).toEqual(cur);
    expect(checked.headers.get('cache-control')).toBe('public, max-age=60');
    const past = await api.run(
      lookupMarket({ client: api.client, query: { asset: 'ETH', duration_secs: 60, window_start_ms: align(Date.now() - 600_000, 60) } }),
      { status: 200 },
    );
    expect(past.checked.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
  });

  it('400 WINDOW_NOT_ALIGNED and 400 VALIDATION_FAILED', async () => {
    const api = svc.client();
    const start = align(Date.now(), 300) + 1;
    const { checked } = await api.run(
      lookupMarket({ client: api.client, query: { asset: 'BTC', duration_secs: 300, window_start_ms: start } }),
      {
        status: 400,
        code: 'WINDOW_NOT_ALIGNED',
      },
    );
    expectErrorBody(checked.body);
    await svc.call(
      'lookupMarket',
      { query: { asset: 'BTC', duration_secs: 300, window_start_ms: 'abc' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
  });

  it('404 MARKET_NOT_FOUND: beyond the lookup horizon, or not offered', async () => {
    const api = svc.client();
    const beyond = align(Date.now() + HORIZON_MS, 300) + 300_000;
    await api.run(lookupMarket({ client: api.client, query: { asset: 'BTC', duration_secs: 300, window_start_ms: beyond } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
    await api.run(lookupMarket({ client: api.client, query: { asset: 'SOL', duration_secs: 300, window_start_ms: 0 } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
  });
});

describe('conditional GET of the public reads', () => {
  it('200 carries an ETag; If-None-Match with it is 304 without a body; another tag is 200', async () => {
    const api = svc.client();
    const twice = async (call: (headers: Record<string, string>) => Promise<{ response?: Response }>, run: typeof api.run) => {
      const first = await run(call({}) as never, { status: 200 });
      const etag = first.checked.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await run(call({ 'If-None-Match': etag! }) as never, { status: 304 });
      expect(again.checked.text).toBe('');
      expect(again.checked.headers.get('etag')).toBe(etag);
      await run(call({ 'If-None-Match': '"other"' }) as never, { status: 200 });
      return first as unknown as { data: { market: { market_id: number } } };
    };
    const cur = await twice(
      (headers) => getCurrentMarket({ client: api.client, query: { asset: 'BTC', duration_secs: 300 }, headers }),
      api.run,
    );
    expect(cur.data.market.market_id).toBeGreaterThan(0);
    await twice(
      (headers) =>
        lookupMarket({ client: api.client, query: { asset: 'ETH', duration_secs: 60, window_start_ms: align(Date.now(), 60) }, headers }),
      api.run,
    );
    await twice((headers) => getRfqTypedData({ client: api.client, headers }), api.run);
  });
});
