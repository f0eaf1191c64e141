// listMakerQuotes (GET /v1/mm/quotes?status=live) through the generated client: a market maker lists its
// live quotes on every RFQ to reconcile after a reconnect. 200 (with quotes, after a cancel and a fill, and
// for another maker), 400, 403 with a user session; 401 and the framework cases are errors.test.ts's.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRfq, createSession, listMakerQuotes } from '../generated/openapi/sdk.gen.ts';
import type { RfqDomain } from '../src/domain/rfq/typed-data.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import {
  buildOrder,
  currentMarketId,
  deposit,
  fetchDomain,
  postOrder,
  readyMaker,
  type MakerConnection,
} from '../src/testing/rfq-trade.js';
import { startContractService, type ContractService } from './harness.ts';

const SIWE_DOMAIN = 'mm-quotes-contract.test';
let svc: ContractService;
let privy: TestPrivy;
let domain: RfqDomain;
let market: number;
const makers: MakerConnection[] = [];

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('mmquotes', { env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', SIWE_DOMAIN } });
  domain = await fetchDomain(svc.baseUrl);
  market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
});
afterAll(async () => {
  for (const m of makers) m.close();
  if (svc) expect(await svc.stop()).toBe(0);
});

async function maker(): Promise<MakerConnection> {
  const m = await readyMaker(svc.baseUrl, {
    operatorToken: svc.operatorToken,
    siweDomain: SIWE_DOMAIN,
    domain,
    collateralMicros: 100_000_000,
  });
  makers.push(m);
  return m;
}

async function taker() {
  const wallet = randomWallet();
  const api = svc.client();
  const privyToken = await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address);
  const { data } = await api.run(createSession({ client: api.client, body: { privy_token: privyToken } }), { status: 200 });
  await deposit(svc.baseUrl, data!.session_token, 10_000_000);
  return { wallet, token: data!.session_token, userId: data!.user_id };
}

describe('listMakerQuotes', () => {
  it('200: the live quotes on every RFQ, oldest first; cancelled RFQs drop out; another maker sees its own only', async () => {
    const [m, other] = [await maker(), await maker()];
    const t = await taker();
    const rfqIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postOrder(svc.baseUrl, t, domain, buildOrder(t.wallet.address, [{ market_id: market, direction: 'up' }]), {
        fillMode: 'manual',
      });
      expect(res.status).toBe(201);
      rfqIds.push(res.body.rfq_id);
      await m.next('rfq', (f) => f.rfq_id === res.body.rfq_id);
    }
    const acks = [];
    for (const [i, id] of rfqIds.entries())
      acks.push(await m.quote(id, { odds_bps: 20_000 + i, max_fill_micros: 1_000_000, client_quote_id: randomUUID() }));
    const api = svc.client({ token: m.token });
    const { data } = await api.run(listMakerQuotes({ client: api.client, query: { status: 'live' } }), { status: 200 });
    expect(data!.quotes.map((q) => [q.rfq_id, q.quote.quote_id, q.quote.status])).toEqual(
      acks.map((a, i) => [rfqIds[i], a.quote_id, 'live']),
    );
    expect(data!.quotes[0]!.quote.client_quote_id).toBe(acks[0].client_quote_id);

    const user = svc.client({ token: t.token });
    await user.run(cancelRfq({ client: user.client, path: { rfq_id: rfqIds[0]! }, body: {} }), { status: 200 });
    const { data: after } = await api.run(listMakerQuotes({ client: api.client, query: { limit: 1 } }), { status: 200 });
    expect(after!.quotes.map((q) => q.rfq_id)).toEqual([rfqIds[1]]);

    const theirs = svc.client({ token: other.token });
    expect((await theirs.run(listMakerQuotes({ client: theirs.client }), { status: 200 })).data).toEqual({ quotes: [] });
  });

  it('400 VALIDATION_FAILED for another status or limit; 403 FORBIDDEN with a user session', async () => {
    const m = await maker();
    await svc.call('listMakerQuotes', { token: m.token, query: { status: 'filled' } }, { status: 400, code: 'VALIDATION_FAILED' });
    await svc.call('listMakerQuotes', { token: m.token, query: { limit: '0' } }, { status: 400, code: 'VALIDATION_FAILED' });
    const t = await taker();
    const user = svc.client({ token: t.token });
    await user.run(listMakerQuotes({ client: user.client }), { status: 403, code: 'FORBIDDEN' });
  });
});
