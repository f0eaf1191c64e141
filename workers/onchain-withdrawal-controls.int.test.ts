// The custody controls against a real local chain (anvil, Circle's USDC; an API and a workers process on
// PostgreSQL + Redis; docs/operations.md, "Custody"): the destinations only an onchain deployment has (the USDC
// contract, the settlement wallet, custodial deposit addresses, and an address a sanctions oracle deployed on anvil
// lists) are refused with nothing reserved or signed; the onchain minimums refuse 1-micro withdrawals and pull
// deposits; a withdrawal held for review is never signed, and once approved it is paid exactly once, its fee kept
// by the treasury; ledger:check is clean after each. (Limits, races and the denylist on two API processes:
// src/http/withdrawal-controls.int.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { approveWithdrawal, createDeposit, createWithdrawal, getDepositWallet, getReservedBalance } from '../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startOnchainStack, type OnchainStack, type OnchainUser } from '../src/testing/onchain-stack.js';
import type { SanctionsOracle } from '../src/testing/sanctions-oracle.js';

const USDC = 1_000_000;
const FEE = 100_000;
const OPERATOR_TOKEN = `onchain-controls-operator-${randomUUID()}`;
let s: OnchainStack;
let oracle: SanctionsOracle;

beforeAll(async () => {
  s = await startOnchainStack({
    label: 'wcontrolsonchain',
    deployment: 'redis',
    chain: { blockTime: 1, confirmations: 1 },
    env: { OPERATOR_TOKEN, WITHDRAWAL_FEE_MICROS: String(FEE), WITHDRAWAL_REVIEW_ABOVE_MICROS: String(5 * USDC) },
    chainEnv: async (chain) => {
      oracle = await chain.deploySanctionsOracle();
      return { SANCTIONS_ORACLE_ADDRESS: oracle.address };
    },
  });
}, 120_000);
afterAll(async () => s?.stop());

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const client = (u: OnchainUser) => sdkClient(s.apis[0]!.baseUrl, u.token);
const withdraw = (u: OnchainUser, amount: number, to: Address) =>
  sent(createWithdrawal({ client: client(u), body: { amount_micros: amount, destination_address: to, idempotency_key: randomUUID() } }));
const signedFor = async (u: OnchainUser) =>
  Number(
    (
      await s.sql.query(
        `select count(*)::int as n from chain_transactions c join operations o on o.id = c.operation_id where o.user_id = $1 and o.kind = 'withdraw'`,
        [u.userId],
      )
    ).rows[0].n,
  );
const reserved = async (u: OnchainUser) => (await sent(getReservedBalance({ client: client(u) }))).data!.reserved_micros;

describe('custody controls onchain', () => {
  it('refuses the USDC contract, the settlement wallet, custodial deposit addresses and a sanctioned address, with nothing reserved or signed', async () => {
    const u = await s.fundedUser(10n * BigInt(USDC));
    const other = await s.newUser();
    const own = (await sent(getDepositWallet({ client: client(u) }))).data!.address as Address;
    const theirs = (await sent(getDepositWallet({ client: client(other) }))).data!.address as Address;
    const listed = fresh();
    await oracle.sanction(listed);
    for (const [to, rule] of [
      [s.chain.token, 'token_contract'],
      [s.chain.settlement.address, 'settlement_wallet'],
      [own, 'deposit_address'],
      [theirs.toLowerCase() as Address, 'deposit_address'],
      [listed, 'sanctioned'],
    ] as const) {
      const res = await withdraw(u, 2 * USDC, to);
      expect([res.status, res.error?.code, (res.error?.details as { rule?: string }).rule], to).toEqual([
        422,
        'DESTINATION_NOT_ALLOWED',
        rule,
      ]);
    }
    expect([await reserved(u), await signedFor(u)]).toEqual(['0', 0]);
    // Off the list, the same address is paid (through the oracle's answer, read again for each request).
    await oracle.unsanction(listed);
    const paid = await withdraw(u, 2 * USDC, listed);
    expect([200, 202]).toContain(paid.status);
    expect(await s.paidOnceProblems(u, paid.data!.operation_id, listed, 2 * USDC)).toEqual([]);
  }, 120_000);

  it('the onchain minimums refuse a 1-micro withdrawal and a 1-micro pull deposit', async () => {
    const u = await s.fundedUser(2n * BigInt(USDC));
    expect((await withdraw(u, 1, fresh())).error).toMatchObject({ code: 'WITHDRAWAL_TOO_SMALL', details: { min_micros: String(USDC) } });
    const dep = await sent(createDeposit({ client: client(u), body: { amount_micros: 1, idempotency_key: randomUUID() } }));
    expect(dep.error).toMatchObject({ code: 'DEPOSIT_TOO_SMALL', details: { min_micros: String(USDC) } });
    expect(await signedFor(u)).toBe(0);
    expect((await s.ledgerCheck()).code).toBe(0);
  }, 60_000);

  it('a withdrawal held for review is never signed; approved, it is paid exactly once and its fee stays with the treasury', async () => {
    const u = await s.fundedUser(20n * BigInt(USDC));
    const to = fresh();
    const held = await withdraw(u, 6 * USDC, to);
    expect(held).toMatchObject({ status: 202, data: { pending_reason: 'review', fee_micros: String(FEE) } });
    const id = held.data!.operation_id;
    expect([await reserved(u), await signedFor(u)]).toEqual([String(6 * USDC + FEE), 0]);
    const operator = sdkClient(s.apis[0]!.baseUrl, OPERATOR_TOKEN);
    const treasury = async () =>
      BigInt((await s.sql.query(`select balance::text as b from ledger_accounts where kind = 'treasury'`)).rows[0].b);
    const before = await treasury();
    const approve = () =>
      sent(approveWithdrawal({ client: operator, path: { operation_id: id }, body: { idempotency_key: randomUUID() } }));
    expect((await approve()).status).toBe(200);
    expect(await s.paidOnceProblems(u, id, to, 6 * USDC)).toEqual([]);
    expect((await approve()).error?.code).toBe('WITHDRAWAL_NOT_IN_REVIEW');
    expect((await treasury()) - before).toBe(BigInt(FEE));
    expect(await reserved(u)).toBe('0');
  }, 120_000);
});
