// Admission control of createRfq (src/http/admission.ts, docs/trading.md "Under overload"): a process over
// its threshold answers 503 OVERLOADED with Retry-After, checked against the spec, and reserves nothing:
// no RFQ, no idempotency key, the balance untouched. The threshold is forced with
// RFQ_ADMISSION_MAX_IN_FLIGHT=0 (a process that admits no RFQ), not with load. Admission runs before
// authentication and before the body is read (src/http/serve.ts), so a refusal costs neither: a request
// without a session, or with a body that is not JSON, is refused the same way.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRfq, createSession, getAvailableBalance, getReservedBalance, listRfqs } from '../generated/openapi/sdk.gen.ts';
import type { RfqDomain } from '../src/domain/rfq/typed-data.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { buildOrder, currentMarketId, deposit, fetchDomain, signOrder } from '../src/testing/rfq-trade.js';
import { startContractService, type ContractService } from './harness.ts';

const SIWE_DOMAIN = 'rfq-overloaded.test';
let svc: ContractService;
let privy: TestPrivy;
let domain: RfqDomain;
let market: number;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('rfqoverload', {
    env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', SIWE_DOMAIN, RFQ_QUOTE_WINDOW_MS: '2000', RFQ_ADMISSION_MAX_IN_FLIGHT: '0' },
  });
  domain = await fetchDomain(svc.baseUrl);
  market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('createRfq on a process over its admission threshold', () => {
  it('503 OVERLOADED with Retry-After (one quote window), before anything is reserved or stored', async () => {
    const wallet = randomWallet();
    const anon = svc.client();
    const { data: session } = await anon.run(
      createSession({
        client: anon.client,
        body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
      }),
      { status: 200 },
    );
    const token = session!.session_token;
    await deposit(svc.baseUrl, token, 10_000_000);
    const api = svc.client({ token });
    const order = buildOrder(wallet.address, [{ market_id: market, direction: 'up' }]);
    const key = randomUUID();
    for (const fill_mode of ['best', 'manual'] as const) {
      const { checked } = await api.run(
        createRfq({
          client: api.client,
          body: { order, signature: await signOrder(wallet, domain, order), fill_mode, idempotency_key: key },
        }),
        { status: 503, code: 'OVERLOADED' },
      );
      expect(checked.headers.get('retry-after')).toBe('2');
    }
    const { data: available } = await api.run(getAvailableBalance({ client: api.client }), { status: 200 });
    const { data: reserved } = await api.run(getReservedBalance({ client: api.client }), { status: 200 });
    expect([available!.available_micros, reserved!.reserved_micros]).toEqual(['10000000', '0']);
    const { data: page } = await api.run(listRfqs({ client: api.client }), { status: 200 });
    expect(page!.rfqs).toEqual([]);
    const sql = new pg.Client({ connectionString: svc.db.url });
    await sql.connect();
    try {
      const keys = await sql.query('select count(*)::int as n from idempotency_keys where key = $1', [key]);
      expect(keys.rows[0].n).toBe(0);
    } finally {
      await sql.end();
    }
  });

  it('refuses before authentication and before reading the body: no session, or a body that is not JSON, is 503 too', async () => {
    const anon = svc.client();
    const order = buildOrder(randomWallet().address, [{ market_id: market, direction: 'up' }]);
    const { checked } = await anon.run(
      createRfq({ client: anon.client, body: { order, signature: '0x00', idempotency_key: randomUUID() } }),
      {
        status: 503,
        code: 'OVERLOADED',
      },
    );
    expect(checked.headers.get('retry-after')).toBe('2');
    const raw = await fetch(`${svc.baseUrl}/v1/rfq`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(raw.status).toBe(503);
    expect(((await raw.json()) as { code: string }).code).toBe('OVERLOADED');
  });
});
