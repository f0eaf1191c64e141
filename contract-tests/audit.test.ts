// The operator audit trail through the generated client: named operator accounts (OPERATOR_TOKENS_FILE
// next to OPERATOR_TOKEN, the account `default`), one entry per operator write, written in the change's
// transaction for every operator write operation of the spec, and listAuditEntries' statuses. Every
// response is checked against the spec.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMarketMaker,
  creditAppTokens,
  deleteMarketMaker,
  listAuditEntries,
  lookupMarket,
  resolveMarket,
  resolveMarketWindow,
  uploadPoolImage,
  voidContest,
} from '../generated/openapi/sdk.gen.ts';
import type { AuditEntry } from '../generated/openapi/types.gen.ts';
import { encodePng } from '../src/domain/contests/images.js';
import { createTestPrivy, randomWallet } from '../src/testing/identity.js';
import { newContest, newUser, type Env } from './contests-fixtures.ts';
import { doc, startContractService, type Checked, type ContractClient } from './harness.ts';

const ALICE = `alice-${randomBytes(12).toString('hex')}`;
const BOB = `bob-${randomBytes(12).toString('hex')}`;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

let env: Env;
let alice: ContractClient;
let bob: ContractClient;

beforeAll(async () => {
  const privy = await createTestPrivy();
  const file = join(mkdtempSync(join(tmpdir(), 'audit-')), 'operators');
  writeFileSync(file, `# the test's operators\nalice ${sha(ALICE)}\nbob sha256:${sha(BOB)}\n`);
  const svc = await startContractService('audit', { env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', OPERATOR_TOKENS_FILE: file } });
  env = { svc, privy, operator: svc.client({ token: svc.operatorToken }) };
  alice = svc.client({ token: ALICE });
  bob = svc.client({ token: BOB });
});
afterAll(async () => {
  if (env?.svc) expect(await env.svc.stop()).toBe(0);
});

const requestIdOf = (c: Checked) => c.headers.get('x-request-id')!;

async function allEntries(): Promise<AuditEntry[]> {
  const { data } = await env.operator.run(listAuditEntries({ client: env.operator.client, query: { limit: 200 } }), { status: 200 });
  return data!.entries;
}

/**
 * Operator writes audited by their own file instead, each with its own audit check: resolveOperation (an operation
 * in review, onchain only) in contract-tests/settlement-review.test.ts; approveWithdrawal and rejectWithdrawal (a
 * withdrawal held by the custody rules, which this file's service does not set) in
 * contract-tests/withdrawal-controls.test.ts.
 */
const AUDITED_ELSEWHERE = new Set(['resolveOperation', 'approveWithdrawal', 'rejectWithdrawal']);

/** The operator write operations of the spec: every non-GET operation that takes the operator token. */
const operatorWrites = Object.entries(doc.paths ?? {}).flatMap(([, item]) =>
  Object.entries(item ?? {})
    .filter(
      ([method, op]) =>
        method !== 'get' &&
        method !== 'parameters' &&
        JSON.stringify((op as { security?: unknown }).security ?? []).includes('operatorBearer'),
    )
    .map(([, op]) => (op as { operationId: string }).operationId)
    .filter((id) => !AUDITED_ELSEWHERE.has(id)),
);

describe('operator writes are audited', () => {
  it('every operator write operation, by the account that made it, in the transaction of its change', async () => {
    const done = new Map<string, { requestId: string; operator: string; status: number; target: string }>();
    const note = (operationId: string, operator: string, checked: Checked, target: string) =>
      done.set(operationId, { requestId: requestIdOf(checked), operator, status: checked.status, target });

    const wallet = randomWallet().address;
    const mm = await alice.run(
      createMarketMaker({ client: alice.client, body: { wallet_address: wallet.toLowerCase(), name: 'Audited MM' } }),
      {
        status: 201,
      },
    );
    note('createMarketMaker', 'alice', mm.checked, wallet);
    const removed = await bob.run(deleteMarketMaker({ client: bob.client, path: { wallet_address: wallet } }), { status: 204 });
    note('deleteMarketMaker', 'bob', removed.checked, wallet);

    const png = encodePng(2, 2, () => [10, 20, 30]);
    const image = await alice.run(
      uploadPoolImage({
        client: alice.client,
        body: new Blob([new Uint8Array(png)], { type: 'image/png' }),
        headers: { 'Content-Type': 'image/png' },
      }),
      { status: 201 },
    );
    note('uploadPoolImage', 'alice', image.checked, image.data!.image_id);

    const contest = await newContest(env); // by `default` (OPERATOR_TOKEN)
    const [created] = (await allEntries()).filter((e) => e.operation_id === 'createContest' && e.target === contest.contest_id);
    expect(created).toMatchObject({ operator: 'default', status: 201, in_transaction: true, method: 'POST', path: '/v1/admin/contests' });
    expect(created!.body).toMatchObject({ title: contest.title, markets: expect.any(Array) });
    done.set('createContest', { requestId: created!.request_id, operator: 'default', status: 201, target: contest.contest_id });

    const marketId = contest.markets[0]!.market_id;
    // VOID: a YES or NO is refused while the contest's betting is open (409 BETTING_OPEN).
    const resolved = await alice.run(resolveMarket({ client: alice.client, path: { market_id: marketId }, body: { outcome: 'VOID' } }), {
      status: 200,
    });
    note('resolveMarket', 'alice', resolved.checked, String(marketId));
    const other = await newContest(env);
    const voided = await bob.run(voidContest({ client: bob.client, path: { id: other.contest_id } }), { status: 200 });
    note('voidContest', 'bob', voided.checked, other.contest_id);

    const start = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 60_000;
    const { data: w } = await alice.run(
      lookupMarket({ client: alice.client, query: { asset: 'ETH', duration_secs: 60, window_start_ms: start } }),
      {
        status: 200,
      },
    );
    const window = await alice.run(
      resolveMarketWindow({ client: alice.client, path: { market_id: w!.market.market_id }, body: { outcome: 'NO' } }),
      {
        status: 200,
      },
    );
    note('resolveMarketWindow', 'alice', window.checked, String(w!.market.market_id));

    const user = await newUser(env);
    const credit = await bob.run(
      creditAppTokens({
        client: bob.client,
        path: { user_id: user.userId },
        body: { amount_micros: 5_000_000, idempotency_key: randomUUID() },
      }),
      { status: 200 },
    );
    note('creditAppTokens', 'bob', credit.checked, user.userId);

    expect([...done.keys()].sort()).toEqual([...operatorWrites].sort()); // this test covers every operator write of the spec
    const entries = await allEntries();
    for (const [operationId, want] of done) {
      const rows = entries.filter((e) => e.request_id === want.requestId);
      expect(rows, operationId).toEqual([
        expect.objectContaining({
          operation_id: operationId,
          operator: want.operator,
          status: want.status,
          target: want.target,
          in_transaction: true,
          error_code: null,
        }),
      ]);
    }
    const imageRow = entries.find((e) => e.request_id === done.get('uploadPoolImage')!.requestId)!;
    expect(imageRow.body).toEqual({
      content_type: 'image/png',
      size_bytes: png.length,
      sha256: createHash('sha256').update(png).digest('hex'),
    });
  });

  it('a rejected write and an idempotent replay have entries of their own, written after the request', async () => {
    const wallet = randomWallet().address.toLowerCase();
    await alice.run(createMarketMaker({ client: alice.client, body: { wallet_address: wallet, name: 'Twice' } }), { status: 201 });
    const again = await bob.run(createMarketMaker({ client: bob.client, body: { wallet_address: wallet, name: 'Twice' } }), {
      status: 409,
      code: 'MARKET_MAKER_EXISTS',
    });
    const user = await newUser(env);
    const body = { amount_micros: 1_000_000, idempotency_key: randomUUID() };
    await alice.run(creditAppTokens({ client: alice.client, path: { user_id: user.userId }, body }), { status: 200 });
    const replay = await alice.run(creditAppTokens({ client: alice.client, path: { user_id: user.userId }, body }), { status: 200 });
    expect(replay.checked.headers.get('idempotent-replayed')).toBe('true');
    const entries = await allEntries();
    expect(entries.filter((e) => e.request_id === requestIdOf(again.checked))).toEqual([
      expect.objectContaining({ operator: 'bob', status: 409, error_code: 'MARKET_MAKER_EXISTS', in_transaction: false }),
    ]);
    expect(entries.filter((e) => e.request_id === requestIdOf(replay.checked))).toEqual([
      expect.objectContaining({ operator: 'alice', status: 200, in_transaction: false, body }),
    ]);
  });
});

describe('listAuditEntries', () => {
  it('200: pages newest first; the pages add up to the whole trail', async () => {
    const whole = (await allEntries()).map((e) => e.audit_id);
    expect(whole.length).toBeGreaterThan(3);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await alice.run(listAuditEntries({ client: alice.client, query: { limit: 3, ...(cursor ? { cursor } : {}) } }), {
        status: 200,
      });
      paged.push(...data!.entries.map((e) => e.audit_id));
      cursor = data!.next_cursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(whole);
  });

  it('400 INVALID_CURSOR and VALIDATION_FAILED; 401 without a token; 403 with a user session', async () => {
    await env.svc.call('listAuditEntries', { token: ALICE, query: { cursor: 'not-a-cursor' } }, { status: 400, code: 'INVALID_CURSOR' });
    await env.svc.call('listAuditEntries', { token: ALICE, query: { limit: 'many' } }, { status: 400, code: 'VALIDATION_FAILED' });
    await env.svc.call('listAuditEntries', {}, { status: 401, code: 'UNAUTHORIZED' });
    const user = await newUser(env);
    await user.api.run(listAuditEntries({ client: user.api.client }), { status: 403, code: 'FORBIDDEN' });
  });
});
