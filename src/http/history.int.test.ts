// The user's history over HTTP against the real service (PostgreSQL + Redis, API and workers: src/testing/
// positions-service.ts): after deposits, a withdrawal, an RFQ fill and the window's settlement, the statement
// of the taker and of the maker (GET /v1/users/ledger) adds up to their balances, and GET /v1/users/operations
// lists the deposits and the withdrawal. Both are walked page by page while new deposits commit: the statement
// stays a snapshot (chained, no gap, no duplicate: src/testing/statement.ts), the operations list shows every
// operation older than its first page once. The complete walks go through the SDK's iterators (sdk/src/history.ts).
import { randomUUID } from 'node:crypto';
import { createClient, operationsHistory, statement as sdkStatement } from '@contest-rfq/sdk';
import { describe, expect, it } from 'vitest';
import {
  createDeposit,
  createWithdrawal,
  getAvailableAppTokenBalance,
  getAvailableBalance,
  getPosition,
  getReservedBalance,
  listLedgerMovements,
  listOperations,
} from '../../generated/openapi/sdk.gen.js';
import type { LedgerMovement, Operation } from '../../generated/openapi/types.gen.js';
import { randomWallet } from '../testing/identity.js';
import { ledgerProblems } from '../testing/money.js';
import { fillPosition, rfqTestDeps } from '../testing/position-fill.js';
import {
  base,
  BUFFER,
  DURATION,
  mmToken,
  orm,
  resolve,
  signIn,
  t,
  until,
  usePositionsService,
  windowOf,
} from '../testing/positions-service.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { expectChained, expectSnapshotOf, fromWire } from '../testing/statement.js';

usePositionsService('history');

type Client = ReturnType<typeof sdkClient>;

async function statement(client: Client, limit: number, between?: () => Promise<void>): Promise<LedgerMovement[]> {
  const out: LedgerMovement[] = [];
  let cursor: string | undefined;
  do {
    const page = await send(listLedgerMovements({ client, query: { limit, ...(cursor ? { cursor } : {}) } }));
    expect(page.status).toBe(200);
    out.push(...page.data!.movements);
    cursor = page.data!.next_cursor ?? undefined;
    if (cursor) await between?.();
  } while (cursor);
  return out;
}

async function operations(client: Client, limit: number, between?: () => Promise<void>): Promise<Operation[]> {
  const out: Operation[] = [];
  let cursor: string | undefined;
  do {
    const page = await send(listOperations({ client, query: { limit, ...(cursor ? { cursor } : {}) } }));
    expect(page.status).toBe(200);
    out.push(...page.data!.operations);
    cursor = page.data!.next_cursor ?? undefined;
    if (cursor) await between?.();
  } while (cursor);
  return out;
}

/** Every item of an SDK iterator, as the SDK's client of `token` walks it. */
async function all<T>(walk: (client: ReturnType<typeof createClient>) => AsyncIterable<T>, token: string): Promise<T[]> {
  const out: T[] = [];
  for await (const item of walk(createClient({ baseUrl: base, token }))) out.push(item);
  return out;
}

async function balances(client: Client) {
  const [a, r, tk] = await Promise.all([
    send(getAvailableBalance({ client })),
    send(getReservedBalance({ client })),
    send(getAvailableAppTokenBalance({ client })),
  ]);
  return {
    available: BigInt(a.data!.available_micros),
    reserved: BigInt(r.data!.reserved_micros),
    appToken: BigInt(tk.data!.available_app_token_micros),
  };
}

const deposit = (client: Client, amount: number) =>
  send(createDeposit({ client, body: { amount_micros: amount, idempotency_key: randomUUID() } }));

describe('history after deposits, a withdrawal, a fill and a settlement', () => {
  it('the statements add up to the balances and the operations list every deposit and withdrawal, while new ones commit', async () => {
    const taker = await signIn(randomWallet(), 20_000_000);
    const tk = sdkClient(base, taker.token);
    expect((await deposit(tk, 5_000_000)).status).toBe(200);
    const dest = randomWallet().address;
    const w = await send(
      createWithdrawal({ client: tk, body: { amount_micros: 3_000_000, destination_address: dest, idempotency_key: randomUUID() } }),
    );
    expect(w.status).toBe(200);
    const makerWallet = randomWallet();
    const maker = await signIn(makerWallet, 20_000_000);
    await mmToken(makerWallet);

    // A fill on the next ETH window, resolved YES by the operator once betting has closed: the taker wins.
    const start = (Math.floor(Date.now() / (DURATION * 1000)) + 1) * DURATION * 1000;
    const eth = await windowOf('ETH', DURATION, start);
    await until(start);
    const positionId = await fillPosition(orm, rfqTestDeps(BUFFER, 400), { taker, maker: makerWallet, legs: [[eth, 'up']] });
    await until(start + DURATION * 1000 - BUFFER);
    expect((await resolve(eth, 'YES')).status).toBe(200);
    await expect
      .poll(async () => (await send(getPosition({ client: tk, path: { position_id: positionId } }))).data?.status, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe('won');

    const mk = sdkClient(base, maker.token);
    const takerWalk = await all((c) => sdkStatement(c, { limit: 2 }), taker.token);
    expect(takerWalk.map((m) => m.kind)).toEqual([
      'position_settle',
      'rfq_reserve',
      'withdraw_settle',
      'withdraw_reserve',
      'deposit',
      'deposit',
    ]);
    expect(takerWalk[0]).toMatchObject({
      reference: { type: 'market_window', id: String(eth) },
      change: { available_micros: '2000000', reserved_micros: '-1000000', available_app_token_micros: '0' },
    });
    expect(expectChained(takerWalk.map(fromWire))).toEqual(await balances(tk));
    expect(await balances(tk)).toEqual({ available: 23_000_000n, reserved: 0n, appToken: 0n });
    const makerWalk = await all((c) => sdkStatement(c, { limit: 1 }), maker.token);
    expect(makerWalk.map((m) => [m.kind, m.reference.type])).toEqual([
      ['position_settle', 'market_window'],
      ['rfq_fill', 'position'],
      ['deposit', 'operation'],
    ]);
    expect(makerWalk[1]!.reference.id).toBe(positionId);
    expect(expectChained(makerWalk.map(fromWire))).toEqual(await balances(mk));

    const ops = await all((c) => operationsHistory(c), taker.token);
    expect(await all((c) => operationsHistory(c, { kind: 'deposit', limit: 1 }), taker.token)).toEqual(ops.slice(1));
    expect(ops.map((o) => [o.kind, o.status, o.amount_micros])).toEqual([
      ['withdraw', 'success', '3000000'],
      ['deposit', 'success', '5000000'],
      ['deposit', 'success', '20000000'],
    ]);
    expect(ops[0]).toMatchObject({ destination_address: dest, tx_hash: expect.stringMatching(/^0x/), tx_hashes: [], confirmations: null });

    // Pages of one while deposits commit between them (and during them): the statement walked is the first page's
    // snapshot, and a later complete walk holds it; the operations walked are unique and miss none of the older ones.
    const arriving: Array<Promise<unknown>> = [];
    const more = async () => {
      arriving.push(deposit(tk, 1_000));
      expect((await deposit(tk, 1_000)).status).toBe(200);
    };
    const during = await statement(tk, 1, more);
    const opsDuring = await operations(tk, 1, more);
    await Promise.all(arriving);
    // A deposit answered 202 (settling past its wait) posts moments later.
    await expect
      .poll(async () => (await statement(tk, 50)).length, { timeout: 30_000, interval: 250 })
      .toBe(takerWalk.length + arriving.length * 2);
    const complete = await statement(tk, 50);
    expect(expectChained(during.map(fromWire))).toEqual({ available: 23_000_000n, reserved: 0n, appToken: 0n });
    expectSnapshotOf(during.map(fromWire), complete.map(fromWire));
    expect(expectChained(complete.map(fromWire))).toEqual(await balances(tk));
    expect(new Set(opsDuring.map((o) => o.operation_id)).size).toBe(opsDuring.length);
    expect(opsDuring.map((o) => o.operation_id)).toEqual(expect.arrayContaining(ops.map((o) => o.operation_id)));
    expect(await ledgerProblems(t.sql)).toEqual([]);
  });
});
