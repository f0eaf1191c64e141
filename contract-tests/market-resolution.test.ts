// getMarket and resolveMarketWindow for windows the price sources decided (docs/prices.md), every response
// checked against the spec: a DISPUTED window with every reading and the rule, resolved by the operator with
// the readings kept, and a window RESOLVED by the feed. The decisions are recorded by the domain's
// resolveWindowFromFeed against the service's database, with in-process sources (their HTTP and chain
// adapters are tested against local servers and anvil in src/domain/prices/*.int.test.ts).
// The test owns its windows: the service runs without its workers (role api), so no resolution job can decide
// them first, and each test has a window of its own, fixed once per file (an hour back), so a minute that
// rolls over while the test runs cannot hand two tests the same window or move the close the feed splits on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMarket, lookupMarket, resolveMarketWindow } from '../generated/openapi/sdk.gen.ts';
import { createOrm, type Orm } from '../src/db/orm.js';
import { resolveWindowFromFeed } from '../src/domain/markets/window-feed.js';
import { createDemoFeed } from '../src/domain/prices/demo.js';
import { createQuorumFeed } from '../src/domain/prices/read.js';
import { startContractService, type ContractClient, type ContractService } from './harness.ts';

let svc: ContractService;
let orm: Orm;
let operator: ContractClient;

beforeAll(async () => {
  svc = await startContractService('mresolution', { env: { RATE_LIMIT_PER_MINUTE: '0' }, role: 'api' });
  operator = svc.client({ token: svc.operatorToken });
  orm = await createOrm({ databaseUrl: svc.db.url });
});

afterAll(async () => {
  await orm?.close(true);
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('windows decided by the price sources', () => {
  // Windows that closed an hour ago, one per test, chosen once: not a function of the clock at the test's time.
  const firstStart = Math.floor(Date.now() / 60_000) * 60_000 - 60 * 60_000;
  const closedWindow = async (index: number) => {
    const start = firstStart - index * 60_000;
    const { data } = await operator.run(
      lookupMarket({ client: operator.client, query: { asset: 'ETH', duration_secs: 60, window_start_ms: start } }),
      {
        status: 200,
      },
    );
    expect(data!.market.start_at_ms).toBe(start);
    return { id: data!.market.market_id, end: start + 60_000 };
  };

  it('200 DISPUTED with every reading and the rule, then the operator resolves it (200) and the readings stay', async () => {
    const { id, end } = await closedWindow(0);
    const split = createQuorumFeed(
      [
        {
          source: 'binance',
          priceAt: async (_a, ts) => ({
            priceMicros: ts === end ? 3_001_000_000n : 3_000_000_000n,
            observedAtMs: ts - 1,
            sourceRef: `kline:${ts - 1000}`,
          }),
        },
        {
          source: 'coinbase',
          priceAt: async (_a, ts) => ({
            priceMicros: ts === end ? 2_999_000_000n : 3_000_000_000n,
            observedAtMs: ts - 1,
            sourceRef: `candle:${ts / 1000 - 60}`,
          }),
        },
        { source: 'chainlink', priceAt: async () => Promise.reject(new Error('no answer within 2000 ms (after 3 tries)')) },
      ],
      2,
      60_000,
    );
    const r = await resolveWindowFromFeed(orm.em.fork(), split, id, { nowMs: Date.now(), maxWaitMs: 0, disputeVoidAfterMs: 3_600_000 });
    expect(r).toMatchObject({ kind: 'disputed', reason: 'disagreement' });
    const anon = svc.client();
    const { data, checked } = await anon.run(getMarket({ client: anon.client, path: { market_id: id } }), { status: 200 });
    expect(checked.headers.get('cache-control')).toBe('no-store');
    expect(data!.market).toMatchObject({
      status: 'DISPUTED',
      outcome: null,
      resolution_rule: {
        sources: ['binance', 'coinbase', 'chainlink'],
        quorum: 2,
        max_age_ms: { binance: 60_000, coinbase: 60_000, chainlink: 60_000 },
      },
      dispute: { reason: 'disagreement' },
    });
    expect(data!.market.sources.map((x) => [x.source, x.vote, x.close?.price_micros ?? null])).toEqual([
      ['binance', 'YES', '3001000000'],
      ['coinbase', 'NO', '2999000000'],
      ['chainlink', 'missing', null],
    ]);
    expect(data!.market.sources[2]!.abstained_reason).toBe('source_error'); // a code: the failure's text is never public
    const resolved = await operator.run(
      resolveMarketWindow({ client: operator.client, path: { market_id: id }, body: { outcome: 'YES' } }),
      {
        status: 200,
      },
    );
    expect(resolved.data!.market).toMatchObject({
      status: 'RESOLVED',
      outcome: 'YES',
      price_source: 'operator',
      dispute: { reason: 'disagreement' },
    });
    expect(resolved.data!.market.sources).toHaveLength(3);
  });

  it('200 RESOLVED by the feed: the agreeing source prices, the rule and every reading', async () => {
    const { id } = await closedWindow(1);
    const feed = createQuorumFeed([createDemoFeed({ seed: 'demo', spreadBps: 50 })], 1, 60_000);
    expect(await resolveWindowFromFeed(orm.em.fork(), feed, id, { nowMs: Date.now(), maxWaitMs: 0, disputeVoidAfterMs: 0 })).toMatchObject({
      kind: 'resolved',
      recorded: true,
    });
    const anon = svc.client();
    const { data, checked } = await anon.run(getMarket({ client: anon.client, path: { market_id: id } }), { status: 200 });
    expect(checked.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    // A final window is a public read with a validator: revalidating it is 304 without a body.
    const etag = checked.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await anon.run(getMarket({ client: anon.client, path: { market_id: id }, headers: { 'If-None-Match': etag! } }), {
      status: 304,
    });
    expect(again.checked.text).toBe('');
    const m = data!.market;
    expect(m).toMatchObject({ status: 'RESOLVED', price_source: 'demo', dispute: null, resolution_rule: { sources: ['demo'], quorum: 1 } });
    expect(m.sources).toEqual([
      {
        source: 'demo',
        vote: m.outcome,
        open: {
          price_micros: m.open_price_micros,
          observed_at_ms: m.start_at_ms,
          ref: `second:${m.start_at_ms / 1000}`,
          confidence_micros: null,
        },
        close: {
          price_micros: m.close_price_micros,
          observed_at_ms: m.end_at_ms,
          ref: `second:${m.end_at_ms / 1000}`,
          confidence_micros: null,
        },
        abstained_reason: null,
      },
    ]);
  });
});
