// RFQ trading through the generated client: createRfq, getRfq, listRfqs, acceptRfqQuote, cancelRfq (user
// session) and getMakerRfq (market-maker session), every documented status except 500 (pending), 503 (rfq-overloaded.test.ts), 429
// (rate-limit.test.ts) and the 401/403 of the framework cases (errors.test.ts). A market maker quotes
// over the WebSocket. Every response is checked against the spec.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptRfqQuote, cancelRfq, createRfq, createSession, getMakerRfq, getRfq, listRfqs } from '../generated/openapi/sdk.gen.ts';
import type { Rfq } from '../generated/openapi/types.gen.ts';
import type { RfqDomain, RfqOrderJson } from '../src/domain/rfq/typed-data.js';
import { createTestPrivy, randomWallet, type TestPrivy, type TestWallet } from '../src/testing/identity.js';
import {
  buildOrder,
  currentMarketId,
  deposit,
  fetchDomain,
  readyMaker,
  signOrder,
  type MakerConnection,
} from '../src/testing/rfq-trade.js';
import { JSON_LIMIT_BYTES, jsonOfSize } from './framework-cases.ts';
import { startContractService, type ContractService } from './harness.ts';

const SIWE_DOMAIN = 'rfq-contract.test';
let svc: ContractService;
let privy: TestPrivy;
let domain: RfqDomain;
let market: number;
let mm: MakerConnection | undefined;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('rfqtrade', {
    env: {
      ...privy.env,
      RATE_LIMIT_PER_MINUTE: '0',
      SIWE_DOMAIN,
      RFQ_QUOTE_WINDOW_MS: '2000',
      DEMO_ONCHAIN_BALANCE_MICROS: '1000000000000',
    },
  });
  domain = await fetchDomain(svc.baseUrl);
  market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
});

/** One maker for the file, connected by the first test that needs quotes. */
async function quotingMaker(): Promise<MakerConnection> {
  mm ??= await readyMaker(svc.baseUrl, {
    operatorToken: svc.operatorToken,
    siweDomain: SIWE_DOMAIN,
    domain,
    collateralMicros: 100_000_000,
  });
  return mm;
}
afterAll(async () => {
  mm?.close();
  if (svc) expect(await svc.stop()).toBe(0);
});

interface Taker {
  wallet: TestWallet;
  token: string;
}

async function taker(fund = 10_000_000): Promise<Taker> {
  const wallet = randomWallet();
  const api = svc.client();
  const { data } = await api.run(
    createSession({
      client: api.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
    { status: 200 },
  );
  if (fund > 0) await deposit(svc.baseUrl, data!.session_token, fund);
  return { wallet, token: data!.session_token };
}

async function body(t: Taker, order: RfqOrderJson, fill_mode: 'best' | 'manual' = 'manual') {
  return { order, signature: await signOrder(t.wallet, domain, order), fill_mode, idempotency_key: randomUUID() };
}

const order = (t: Taker, over: Partial<RfqOrderJson> = {}) => buildOrder(t.wallet.address, [{ market_id: market, direction: 'up' }], over);

async function openManual(t: Taker, over: Partial<RfqOrderJson> = {}): Promise<Rfq> {
  const api = svc.client({ token: t.token });
  const { data } = await api.run(createRfq({ client: api.client, body: await body(t, order(t, over)) }), { status: 201 });
  return data as Rfq;
}

describe('createRfq', () => {
  it('201 best mode (terminal, with Location) and manual mode (open); a replay says Idempotent-Replayed', async () => {
    const t = await taker();
    const api = svc.client({ token: t.token });
    const mm = await quotingMaker();
    mm.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 5_000_000 }));
    try {
      const { data, checked } = await api.run(createRfq({ client: api.client, body: await body(t, order(t), 'best') }), { status: 201 });
      expect(data).toMatchObject({ status: 'filled', fill_mode: 'best', quotes_received: 1 });
      expect(checked.headers.get('location')).toBe(`/v1/rfq/${data!.rfq_id}`);
    } finally {
      mm.autoQuote(() => null);
    }
    const manual = await body(t, order(t));
    const { data: open } = await api.run(createRfq({ client: api.client, body: manual }), { status: 201 });
    expect(open).toMatchObject({ status: 'open', fill_mode: 'manual', closed_at_ms: null, close_reason: null });
    const { data: again, checked } = await api.run(createRfq({ client: api.client, body: manual }), { status: 201 });
    expect(again).toEqual(open);
    expect(checked.headers.get('idempotent-replayed')).toBe('true');
  });

  it('400, 404 MARKET_NOT_FOUND, 409 NONCE_REUSED and IDEMPOTENCY_KEY_REUSED, 413, 415', async () => {
    const t = await taker();
    const api = svc.client({ token: t.token });
    const ok = await body(t, order(t));
    await api.run(createRfq({ client: api.client, body: { ...ok, order: { ...ok.order, min_odds_bps: 10_000 } } }), {
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    const lost = order(t, { legs: [{ market_id: 987_654_321, direction: 'down' }] });
    await api.run(createRfq({ client: api.client, body: await body(t, lost) }), { status: 404, code: 'MARKET_NOT_FOUND' });
    await api.run(createRfq({ client: api.client, body: ok }), { status: 201 });
    await api.run(createRfq({ client: api.client, body: { ...ok, idempotency_key: randomUUID() } }), { status: 409, code: 'NONCE_REUSED' });
    await api.run(createRfq({ client: api.client, body: { ...ok, fill_mode: 'best' } }), { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    await svc.call(
      'createRfq',
      { token: t.token, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await svc.call(
      'createRfq',
      { token: t.token, rawBody: JSON.stringify(ok), contentType: 'text/plain' },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    );
  });

  it('422 INVALID_ORDER, ORDER_EXPIRED, TAKER_MISMATCH, INVALID_SIGNATURE, INSUFFICIENT_BALANCE', async () => {
    const t = await taker();
    const api = svc.client({ token: t.token });
    const run = async (b: Awaited<ReturnType<typeof body>>, code: string) =>
      api.run(createRfq({ client: api.client, body: b }), { status: 422, code });
    const { data } = await run(await body(t, order(t, { stake_micros: 100 })), 'INVALID_ORDER');
    expect(data).toBeUndefined();
    await run(await body(t, order(t, { deadline_ms: Date.now() - 1_000 })), 'ORDER_EXPIRED');
    const other = randomWallet();
    const foreign = buildOrder(other.address, [{ market_id: market, direction: 'up' }]);
    await run({ ...(await body(t, foreign)), signature: await signOrder(other, domain, foreign) }, 'TAKER_MISMATCH');
    const mine = order(t);
    await run({ ...(await body(t, mine)), signature: await signOrder(other, domain, mine) }, 'INVALID_SIGNATURE');
    const broke = await taker(0);
    const brokeApi = svc.client({ token: broke.token });
    await brokeApi.run(createRfq({ client: brokeApi.client, body: await body(broke, order(broke)) }), {
      status: 422,
      code: 'INSUFFICIENT_BALANCE',
    });
  });
});

describe('getRfq, listRfqs', () => {
  it('getRfq 200 (also as a long-poll that times out unchanged), 400, 404; listRfqs 200 and 400', async () => {
    const t = await taker();
    const rfq = await openManual(t);
    const api = svc.client({ token: t.token });
    expect((await api.run(getRfq({ client: api.client, path: { rfq_id: rfq.rfq_id } }), { status: 200 })).data).toEqual(rfq);
    const { data: polled } = await api.run(getRfq({ client: api.client, path: { rfq_id: rfq.rfq_id }, query: { wait_ms: 200 } }), {
      status: 200,
    });
    expect(polled).toEqual(rfq);
    await svc.call(
      'getRfq',
      { token: t.token, pathParams: { rfq_id: rfq.rfq_id }, query: { wait_ms: 10_001 } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await api.run(getRfq({ client: api.client, path: { rfq_id: randomUUID() } }), { status: 404, code: 'RFQ_NOT_FOUND' });
    const stranger = await taker(0);
    const s = svc.client({ token: stranger.token });
    await s.run(getRfq({ client: s.client, path: { rfq_id: rfq.rfq_id } }), { status: 404, code: 'RFQ_NOT_FOUND' });

    const { data: list } = await api.run(listRfqs({ client: api.client, query: { status: 'open', limit: 10 } }), { status: 200 });
    expect(list).toEqual({ rfqs: [rfq], next_cursor: null });
    await svc.call('listRfqs', { token: t.token, query: { status: 'pending' } }, { status: 400, code: 'VALIDATION_FAILED' });
    await api.run(listRfqs({ client: api.client, query: { cursor: 'not-a-cursor.x' } }), { status: 400, code: 'INVALID_CURSOR' });
  });
});

describe('acceptRfqQuote, cancelRfq, getMakerRfq', () => {
  it('accept 200 and its replay; 404 QUOTE_NOT_FOUND; 422 ODDS_BELOW_MINIMUM; 409 RFQ_NOT_OPEN; getMakerRfq 200', async () => {
    const t = await taker();
    const api = svc.client({ token: t.token });
    const mm = await quotingMaker();
    const rfq = await openManual(t, { min_odds_bps: 20_000 });
    await mm.next('rfq', (f) => f.rfq_id === rfq.rfq_id);
    const path = { rfq_id: rfq.rfq_id };
    await api.run(acceptRfqQuote({ client: api.client, path, body: { quote_id: randomUUID(), idempotency_key: randomUUID() } }), {
      status: 404,
      code: 'QUOTE_NOT_FOUND',
    });
    const low = await mm.quote(rfq.rfq_id, { odds_bps: 15_000, max_fill_micros: 5_000_000 });
    await api.run(acceptRfqQuote({ client: api.client, path, body: { quote_id: low.quote_id, idempotency_key: randomUUID() } }), {
      status: 422,
      code: 'ODDS_BELOW_MINIMUM',
    });
    const good = await mm.quote(rfq.rfq_id, { odds_bps: 25_000, max_fill_micros: 5_000_000 });
    const accept = { quote_id: good.quote_id, idempotency_key: randomUUID() };
    const { data: filled } = await api.run(acceptRfqQuote({ client: api.client, path, body: accept }), { status: 200 });
    expect(filled).toMatchObject({ status: 'filled', odds_bps: 25_000 });
    const { data: replay, checked } = await api.run(acceptRfqQuote({ client: api.client, path, body: accept }), { status: 200 });
    expect(replay).toEqual(filled);
    expect(checked.headers.get('idempotent-replayed')).toBe('true');
    await api.run(acceptRfqQuote({ client: api.client, path, body: { ...accept, idempotency_key: randomUUID() } }), {
      status: 409,
      code: 'RFQ_NOT_OPEN',
    });
    await api.run(cancelRfq({ client: api.client, path, body: {} }), { status: 409, code: 'RFQ_NOT_OPEN' });

    const maker = svc.client({ token: mm.token });
    const { data: seen } = await maker.run(getMakerRfq({ client: maker.client, path }), { status: 200 });
    expect(seen).toMatchObject({ rfq_id: rfq.rfq_id, status: 'filled' });
    expect(seen!.quotes.map((q) => q.status).sort()).toEqual(['filled', 'replaced']);
    await maker.run(getMakerRfq({ client: maker.client, path: { rfq_id: randomUUID() } }), { status: 404, code: 'RFQ_NOT_FOUND' });
    await svc.call('getMakerRfq', { token: mm.token, pathParams: { rfq_id: 'nope' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });

  it('accept 400, 404 RFQ_NOT_FOUND, 413, 415; cancel 200 (and repeat), 400, 404, 413, 415', async () => {
    const t = await taker();
    const api = svc.client({ token: t.token });
    const rfq = await openManual(t);
    const path = { rfq_id: rfq.rfq_id };
    await svc.call(
      'acceptRfqQuote',
      { token: t.token, pathParams: path, body: { quote_id: 'x', idempotency_key: randomUUID() } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await api.run(
      acceptRfqQuote({
        client: api.client,
        path: { rfq_id: randomUUID() },
        body: { quote_id: randomUUID(), idempotency_key: randomUUID() },
      }),
      {
        status: 404,
        code: 'RFQ_NOT_FOUND',
      },
    );
    for (const op of ['acceptRfqQuote', 'cancelRfq']) {
      await svc.call(
        op,
        { token: t.token, pathParams: path, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
        { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      );
      await svc.call(
        op,
        { token: t.token, pathParams: path, rawBody: '{}', contentType: 'text/plain' },
        { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      );
    }
    await svc.call(
      'cancelRfq',
      { token: t.token, pathParams: path, body: { reason: 'changed my mind' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await api.run(cancelRfq({ client: api.client, path: { rfq_id: randomUUID() }, body: {} }), { status: 404, code: 'RFQ_NOT_FOUND' });
    const { data: cancelled } = await api.run(cancelRfq({ client: api.client, path, body: {} }), { status: 200 });
    expect(cancelled).toMatchObject({ status: 'cancelled', close_reason: 'cancelled' });
    expect((await api.run(cancelRfq({ client: api.client, path, body: {} }), { status: 200 })).data).toEqual(cancelled);
  });
});
