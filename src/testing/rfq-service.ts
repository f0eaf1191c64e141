// Shared set-up of the RFQ integration tests (src/http/rfq*.int.test.ts): the real service (PostgreSQL +
// Redis, API and workers in one process) with a BTC and an ETH daily window, market makers quoting over the
// WebSocket, and the ledger check after every scenario. useRfqService() registers the hooks; a test file
// calls it once, at its top level, and reads the exported bindings below (set by its beforeAll; each test
// file has its own module instance).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { RfqDomain } from '../domain/rfq/typed-data.js';
import { acceptRfqQuote, cancelRfq, getRfq } from '../../generated/openapi/sdk.gen.js';
import type { TestPrivy } from './identity.js';
import { sdkClient, send } from './sdk-client.js';
import { ledgerProblems } from './money.js';
import { currentMarketId, fetchDomain, newTaker, readyMaker, type MakerConnection, type Party } from './rfq-trade.js';
import type { ServiceProcess } from './service-process.js';
import { startTestService, type TestService } from './test-service.js';

export const SIWE_DOMAIN = 'rfq.test';
// A wider quote window than the default 500 ms: makers on a loaded 2-core test machine still answer in time.
export const QUOTE_WINDOW_MS = 2000;
export const USDC = 1_000_000;

// Set once by useRfqService's beforeAll, read by the tests.
export let t: TestService;
export let svc: ServiceProcess;
export let privy: TestPrivy;
export let sql: pg.Client;
export let domain: RfqDomain;
export let market: number;
export let market2: number;
export const makers: MakerConnection[] = [];

/** Starts the service before the file's tests, stops quoting and checks the ledger after each, stops it after all. */
export function useRfqService(label: string): void {
  beforeAll(async () => {
    t = await startTestService(label, {
      SIWE_DOMAIN,
      RFQ_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS),
      DEMO_ONCHAIN_BALANCE_MICROS: String(1_000_000 * USDC),
    });
    ({ svc, privy, sql } = t);
    domain = await fetchDomain(svc.baseUrl);
    market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
    market2 = (await currentMarketId(svc.baseUrl, 'ETH', 86400)).marketId;
  });

  afterEach(async () => {
    for (const m of makers) m.autoQuote(() => null);
    expect(await ledgerProblems(sql)).toEqual([]);
  });

  afterAll(async () => {
    for (const m of makers) m.close();
    await t?.stop();
  });
}

export async function maker(collateralMicros = 100 * USDC) {
  const m = await readyMaker(svc.baseUrl, { operatorToken: t.operatorToken, siweDomain: SIWE_DOMAIN, domain, collateralMicros });
  makers.push(m);
  return m;
}

export const taker = (fund = 10 * USDC) => newTaker(svc.baseUrl, privy, fund);
export const legs = (...ids: number[]) =>
  ids.map((market_id, i) => ({ market_id, direction: i % 2 ? ('down' as const) : ('up' as const) }));
export const get = (p: Party, id: string, waitMs?: number) =>
  send(getRfq({ client: sdkClient(svc.baseUrl, p.token), path: { rfq_id: id }, ...(waitMs ? { query: { wait_ms: waitMs } } : {}) }));
export const accept = (p: Party, id: string, quoteId: string, key = randomUUID()) =>
  send(
    acceptRfqQuote({ client: sdkClient(svc.baseUrl, p.token), path: { rfq_id: id }, body: { quote_id: quoteId, idempotency_key: key } }),
  );
export const cancel = (p: Party, id: string) =>
  send(cancelRfq({ client: sdkClient(svc.baseUrl, p.token), path: { rfq_id: id }, body: {} }));
/** The checksummed address with one letter's case flipped so that it stays mixed case: matches the pattern, fails EIP-55. */
export function badChecksum(address: string): string {
  for (let i = 2; i < address.length; i++) {
    const c = address[i]!;
    if (!/[a-fA-F]/.test(c)) continue;
    const flipped = address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
    if (/[a-f]/.test(flipped.slice(2)) && /[A-F]/.test(flipped.slice(2))) return flipped;
  }
  throw new Error(`no mixed-case flip of ${address}`);
}
/** An error answer: from the generated SDK (`error`) or from postOrder (src/testing/rfq-trade.ts, `body`). */
export const expectError = (res: { status: number; error?: { code?: unknown }; body?: { code?: unknown } }, status: number, code: string) =>
  expect({ status: res.status, code: res.error?.code ?? res.body?.code }).toEqual({ status, code });
