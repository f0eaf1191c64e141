// Shared set-up of the money integration tests (src/http/money*.int.test.ts): the real service (PostgreSQL +
// Redis, API and workers in one process) with a demo onchain balance of DEMO_LIMIT per user, the ledger check
// after every scenario, and the balance reads, deposits and withdrawals those tests share.
// useMoneyService() registers the hooks; a test file calls it once, at its top level, and reads the exported
// bindings below (set by its beforeAll; each test file has its own module instance).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ServiceProcess } from './service-process.js';
import {
  createDeposit,
  createWithdrawal,
  getAvailableAppTokenBalance,
  getAvailableBalance,
  getReservedBalance,
} from '../../generated/openapi/sdk.gen.js';
import type { TestPrivy } from './identity.js';
import { sdkClient, send } from './sdk-client.js';
import { ledgerProblems } from './money.js';
import { startTestService, type TestService } from './test-service.js';

export const DEMO_LIMIT = 1_000_000;
// Set once by useMoneyService's beforeAll, read by the tests.
export let OPERATOR_TOKEN: string;
let t: TestService;
export let svc: ServiceProcess;
export let privy: TestPrivy;
export let sql: pg.Client;

/** Starts the service before the file's tests, checks the ledger after each, stops it after all. */
export function useMoneyService(label: string): void {
  beforeAll(async () => {
    t = await startTestService(label, { DEMO_ONCHAIN_BALANCE_MICROS: String(DEMO_LIMIT) });
    ({ svc, privy, sql, operatorToken: OPERATOR_TOKEN } = t);
  });

  afterEach(async () => {
    expect(await ledgerProblems(sql)).toEqual([]);
  });

  afterAll(async () => {
    await t?.stop();
  });
}

export const count = async (table: string, where = 'true', params: unknown[] = []) =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`, params)).rows[0].n);

export async function balances(token: string) {
  const client = sdkClient(svc.baseUrl, token);
  const [a, r, t] = await Promise.all([
    send(getAvailableBalance({ client })),
    send(getReservedBalance({ client })),
    send(getAvailableAppTokenBalance({ client })),
  ]);
  return { available: a.data?.available_micros, reserved: r.data?.reserved_micros, appToken: t.data?.available_app_token_micros };
}

export const deposit = (token: string, amount: number, key: string = randomUUID()) =>
  send(createDeposit({ client: sdkClient(svc.baseUrl, token), body: { amount_micros: amount, idempotency_key: key } }));
export const withdraw = (token: string, amount: number, destination: string, key: string = randomUUID()) =>
  send(
    createWithdrawal({
      client: sdkClient(svc.baseUrl, token),
      body: { amount_micros: amount, destination_address: destination, idempotency_key: key },
    }),
  );
