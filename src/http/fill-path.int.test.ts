// The fill path's guarantees against the real service (PostgreSQL + Redis, one process): a best-mode POST
// always answers a terminal RFQ; quote signatures are checked at quote_ack (bad signer, high s, another
// deployment's salt); an order signed for another deployment is refused; a quote that cannot fill an
// accept is marked dead at once; the ledger check holds after every scenario. See docs/fill-path.md.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { orderTypedData, type RfqDomain } from '../domain/rfq/typed-data.js';
import { acceptRfqQuote, getRfq } from '../../generated/openapi/sdk.gen.js';
import { randomWallet, type TestPrivy } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { ledgerProblems } from '../testing/money.js';
import { buildOrder, currentMarketId, fetchDomain, newTaker, postOrder, readyMaker, type MakerConnection } from '../testing/rfq-trade.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const SIWE_DOMAIN = 'fillpath.test';
const USDC = 1_000_000;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const BEST_POSTS = 200;

let t: TestService;
let privy: TestPrivy;
let sql: pg.Client;
let domain: RfqDomain;
let market: number;
const makers: MakerConnection[] = [];

beforeAll(async () => {
  t = await startTestService('fillpath', {
    SIWE_DOMAIN,
    // The shortest quote window: the close timer's due time is as close as it gets to the POST.
    RFQ_QUOTE_WINDOW_MS: '10',
    RFQ_MAX_OPEN_PER_USER: String(BEST_POSTS),
    DEMO_ONCHAIN_BALANCE_MICROS: String(1_000_000 * USDC),
  });
  ({ privy, sql } = t);
  domain = await fetchDomain(t.svc.baseUrl);
  market = (await currentMarketId(t.svc.baseUrl, 'BTC', 86400)).marketId;
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  for (const m of makers) m.close();
  await t?.stop();
});

const base = () => t.svc.baseUrl;
async function maker(collateralMicros = 100 * USDC) {
  const m = await readyMaker(base(), { operatorToken: t.operatorToken, siweDomain: SIWE_DOMAIN, domain, collateralMicros });
  makers.push(m);
  return m;
}
const up = () => [{ market_id: market, direction: 'up' as const }];
/** The malleable twin of a signature: s -> n - s, v flipped (recovers the same address in viem). */
function highS(sig: Hex): Hex {
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = Number.parseInt(sig.slice(130), 16);
  return `${sig.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
}

describe('best mode', () => {
  it(`${BEST_POSTS} best-mode POSTs all answer a terminal RFQ (never open)`, async () => {
    const taker = await newTaker(base(), privy, BEST_POSTS * USDC);
    const statuses: string[] = [];
    const post = async () => {
      const res = await postOrder(base(), taker, domain, buildOrder(taker.wallet.address, up(), { deadline_ms: Date.now() + 20_000 }));
      expect(res.status).toBe(201);
      statuses.push(res.body.status);
    };
    for (let done = 0; done < BEST_POSTS; done += 20) await Promise.all(Array.from({ length: 20 }, post));
    expect(statuses).toHaveLength(BEST_POSTS);
    expect(statuses.filter((s) => s === 'open')).toEqual([]);
  });
});

describe('quote signatures at quote_ack', () => {
  it('refuses another signer, a high-s twin and another deployment`s salt with invalid_signature; records the good one', async () => {
    const m = await maker();
    const taker = await newTaker(base(), privy, 10 * USDC);
    const created = await postOrder(base(), taker, domain, buildOrder(taker.wallet.address, up()), { fillMode: 'manual' });
    expect(created.status).toBe(201);
    const id = created.body.rfq_id as string;
    const q = { odds_bps: 20_000, max_fill_micros: USDC, valid_until_ms: Date.now() + 10_000 };
    expect(await m.quote(id, { ...q, signer: randomWallet() })).toMatchObject({ accepted: false, error: 'invalid_signature' });
    const salted = await m.quote(id, { ...q, domain: { ...domain, salt: `0x${'07'.repeat(32)}` } });
    expect(salted).toMatchObject({ accepted: false, error: 'invalid_signature' });
    const good = await m.signQuote(id, q);
    m.send({ ...good, signature: highS(good.signature) });
    expect(await m.next('quote_ack', (a) => a.rfq_id === id)).toMatchObject({ accepted: false, error: 'invalid_signature' });
    m.send({ ...good, signature: `${good.signature.slice(0, 130)}05` });
    expect(await m.next('quote_ack', (a) => a.rfq_id === id)).toMatchObject({ accepted: false, error: 'invalid_signature' });
    expect(await m.quote(id, { ...q, max_fill_micros: 9_999 })).toMatchObject({ accepted: false, error: 'below_min_fill' });
    expect(await m.quote(id, q)).toMatchObject({ accepted: true, error: null });
    const read = await send(getRfq({ client: sdkClient(base(), taker.token), path: { rfq_id: id } }));
    expect(read.data?.quotes).toHaveLength(1);
  });

  it('caps a quote`s valid_until_ms at the RFQ`s expires_at_ms', async () => {
    const m = await maker();
    const taker = await newTaker(base(), privy, 10 * USDC);
    const order = buildOrder(taker.wallet.address, up(), { deadline_ms: Date.now() + 5_000 });
    const created = await postOrder(base(), taker, domain, order, { fillMode: 'manual' });
    const id = created.body.rfq_id as string;
    expect(await m.quote(id, { odds_bps: 20_000, max_fill_micros: USDC, valid_until_ms: Date.now() + 50_000 })).toMatchObject({
      accepted: true,
    });
    const read = await send(getRfq({ client: sdkClient(base(), taker.token), path: { rfq_id: id } }));
    expect(read.data?.quotes[0]?.valid_until_ms).toBe(created.body.expires_at_ms);
  });
});

describe('orders', () => {
  it('an order signed for another deployment (another salt) or with a high-s signature is 422 INVALID_SIGNATURE', async () => {
    const taker = await newTaker(base(), privy, 10 * USDC);
    const other = { ...domain, salt: `0x${'07'.repeat(32)}` as Hex };
    const res = await postOrder(base(), taker, other, buildOrder(taker.wallet.address, up()), { fillMode: 'manual' });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'INVALID_SIGNATURE' });
    expect(res.body.error).toContain(domain.salt);
    const order = buildOrder(taker.wallet.address, up());
    const sig = (await taker.wallet.signTypedData(orderTypedData(domain, order))) as Hex;
    const twin = await postOrder(base(), taker, domain, order, { fillMode: 'manual', signature: highS(sig) });
    expect({ status: twin.status, code: twin.body.code }).toEqual({ status: 422, code: 'INVALID_SIGNATURE' });
    expect((await postOrder(base(), taker, domain, order, { fillMode: 'manual', signature: sig })).status).toBe(201);
  });
});

describe('manual accept', () => {
  it('a quote whose maker lost its collateral is marked rejected when an accept fails, and no later taker can accept it', async () => {
    const m = await maker(USDC); // enough for one liability of 1 USDC at 2.0
    const [t1, t2] = await Promise.all([1, 2].map(() => newTaker(base(), privy, 10 * USDC)));
    const open = async (tk: typeof t1) => {
      const r = await postOrder(base(), tk!, domain, buildOrder(tk!.wallet.address, up(), { order_type: 'IOC' }), { fillMode: 'manual' });
      expect(r.status).toBe(201);
      const ack = await m.quote(r.body.rfq_id, { odds_bps: 20_000, max_fill_micros: USDC });
      expect(ack.accepted).toBe(true);
      return { id: r.body.rfq_id as string, quoteId: ack.quote_id as string };
    };
    const a = await open(t1);
    const b = await open(t2);
    const accept = (tk: typeof t1, r: { id: string; quoteId: string }) =>
      send(
        acceptRfqQuote({
          client: sdkClient(base(), tk!.token),
          path: { rfq_id: r.id },
          body: { quote_id: r.quoteId, idempotency_key: randomUUID() },
        }),
      );
    expect((await accept(t1, a)).status).toBe(200);
    const failed = await accept(t2, b);
    expect({ status: failed.status, code: failed.error?.code }).toEqual({ status: 422, code: 'INSUFFICIENT_LIQUIDITY' });
    const read = await send(getRfq({ client: sdkClient(base(), t2!.token), path: { rfq_id: b.id } }));
    expect(read.data).toMatchObject({ status: 'open', quotes: [{ quote_id: b.quoteId, status: 'rejected' }] });
    expect(await m.next('quote_result', (f) => f.quote_id === b.quoteId)).toMatchObject({
      status: 'rejected',
      reason: 'insufficient_collateral',
    });
    const again = await accept(t2, b);
    expect({ status: again.status, code: again.error?.code }).toEqual({ status: 409, code: 'QUOTE_NOT_LIVE' });
  });
});
