// Sessions are remembered per API process (src/http/session-cache.ts). Two processes on one database with
// Redis, both remembering sessions for 60 s (SESSION_CACHE_MS=60000), so only the bus can make B forget one
// in time: a logout on A, a market maker's removal on A and a session revoked behind the service's back
// (which B serves until its cache entry ends: the documented bound) are each checked on B.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteMarketMaker, getMakerPnl, getPreferences, logout } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { newUserSession } from '../testing/money.js';
import { connectMaker, fetchDomain, registerMarketMaker } from '../testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let a: ServiceProcess;
let b: ServiceProcess;

beforeAll(async () => {
  t = await startTestService('session-cache', { SESSION_CACHE_MS: '60000' });
  a = t.svc;
  b = await startServiceProcess({ env: { ...t.env, SESSION_CACHE_MS: '60000' }, args: ['--role=api'] });
});

afterAll(async () => {
  await b?.stop();
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const preferences = (svc: ServiceProcess, token: string) => send(getPreferences({ client: sdkClient(svc.baseUrl, token) }));
const makerPnl = (svc: ServiceProcess, token: string) => send(getMakerPnl({ client: sdkClient(svc.baseUrl, token) }));

/** Polls `request` until it answers `status` (the bus delivers in milliseconds; 10 s is a failure). */
async function eventually<R extends { status: number }>(request: () => Promise<R>, status: number): Promise<R> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await request();
    if (r.status === status || Date.now() > deadline) return r;
    await sleep(20);
  }
}

describe('remembered sessions across processes', () => {
  it('a logout on A is honoured on A at once and on B as soon as the bus delivers', async () => {
    const u = await newUserSession(a.baseUrl, t.privy);
    // Both processes remember the session.
    for (const svc of [a, b]) expect((await preferences(svc, u.token)).status).toBe(200);
    expect((await send(logout({ client: sdkClient(a.baseUrl, u.token) }))).status).toBe(204);
    const onA = await preferences(a, u.token);
    expect([onA.status, onA.error?.code]).toEqual([401, 'INVALID_SESSION']);
    const onB = await eventually(() => preferences(b, u.token), 401);
    expect([onB.status, onB.error?.code]).toEqual([401, 'INVALID_SESSION']);
  });

  it("a market maker's removal on A ends its session on B's REST routes too", async () => {
    const wallet = await registerMarketMaker(a.baseUrl, t.operatorToken, randomWallet());
    const maker = await connectMaker(b.baseUrl, wallet, await fetchDomain(b.baseUrl));
    try {
      expect((await makerPnl(b, maker.token)).status).toBe(200);
      const del = await send(
        deleteMarketMaker({ client: sdkClient(a.baseUrl, t.operatorToken), path: { wallet_address: wallet.address } }),
      );
      expect(del.status).toBeLessThan(300);
      const onB = await eventually(() => makerPnl(b, maker.token), 401);
      expect([onB.status, onB.error?.code]).toEqual([401, 'INVALID_SESSION']);
    } finally {
      maker.close();
    }
  });

  it('a session revoked in the database alone stays remembered until its entry ends (the documented bound), and a fresh process sees it at once', async () => {
    const u = await newUserSession(a.baseUrl, t.privy);
    expect((await preferences(b, u.token)).status).toBe(200);
    await t.sql.query('update sessions set revoked_at = now() where user_id = $1', [u.userId]);
    // No message went out: B still serves the remembered session (this is what SESSION_CACHE_MS bounds) ...
    expect((await preferences(b, u.token)).status).toBe(200);
    // ... while A, which never looked this token up, reads the database.
    const onA = await preferences(a, u.token);
    expect([onA.status, onA.error?.code]).toEqual([401, 'INVALID_SESSION']);
  });
});
