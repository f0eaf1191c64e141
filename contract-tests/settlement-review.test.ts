// The operator's review of settlements whose outcome the chain could not prove (listAdminOperations,
// resolveOperation), through the generated client, every response checked against the spec. The service reaches
// anvil through the hosted-provider stand-in (src/testing/rpc-provider.ts), which hides every receipt, with
// CHAIN_RECEIPT_REVIEW_AFTER_MS at its 1 s minimum: two withdrawals are paid on chain and go to `needs_review`
// (never failed or refunded). One is resolved `success` with its mined hash (then replayed, then refused as no
// longer in review); once the provider serves receipts again, resolving the other is 409 CHAIN_HAS_RECEIPT.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  createDeposit,
  createSession,
  createWithdrawal,
  getAvailableBalance,
  getOperation,
  getReservedBalance,
  listAdminOperations,
  listAuditEntries,
  resolveOperation,
} from '../generated/openapi/sdk.gen.ts';
import { startTestChain, type TestChain } from '../src/testing/chain.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { startProviderProxy, type ProviderProxy } from '../src/testing/rpc-provider.js';
import { startContractService, type ContractClient, type ContractService } from './harness.ts';

let chain: TestChain;
let provider: ProviderProxy;
let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  chain = await startTestChain({ blockTime: 1 });
  provider = await startProviderProxy({ upstream: chain.anvil.url });
  svc = await startContractService('review', {
    env: {
      ...privy.env,
      ...chain.env,
      CHAIN_RPC_URL: provider.url,
      RATE_LIMIT_PER_MINUTE: '0',
      DEPOSIT_SYNC_WAIT_MS: '0',
      CHAIN_RECEIPT_REVIEW_AFTER_MS: '1000',
      CHAIN_REVIEW_RECHECK_MS: '600000',
    },
  });
}, 60_000);
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
  await provider?.stop();
  await chain?.stop();
});

async function fundedSession(wallet: PrivateKeyAccount, micros: bigint): Promise<ContractClient> {
  const anon = svc.client();
  const { data } = await anon.run(
    createSession({
      client: anon.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
    { status: 200 },
  );
  const api = svc.client({ token: data!.session_token });
  await chain.approve(wallet, chain.settlement.address, micros);
  const { data: dep } = await api.run(
    createDeposit({ client: api.client, body: { amount_micros: Number(micros), idempotency_key: randomUUID() } }),
    {
      status: 202,
    },
  );
  for (let i = 0; i < 300; i++) {
    const { data: op } = await api.run(getOperation({ client: api.client, path: { operation_id: dep!.operation_id } }), { status: 200 });
    if (op!.status === 'success') return api;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the deposit did not settle');
}

describe('settlement in review', () => {
  it('listAdminOperations 200/400; resolveOperation 200, replay, 400, 404, 409 OPERATION_NOT_IN_REVIEW and CHAIN_HAS_RECEIPT', async () => {
    const user = await fundedSession(await chain.newWallet(10_000_000n), 10_000_000n);
    const operator = svc.client({ token: svc.operatorToken });
    provider.hideReceipts({ forMs: 3_600_000 });
    const to = [randomWallet().address, randomWallet().address];
    const ids: string[] = [];
    for (const t of to) {
      const { data } = await user.run(
        createWithdrawal({
          client: user.client,
          body: { amount_micros: 2_000_000, destination_address: t, idempotency_key: randomUUID() },
        }),
        { status: 202 },
      );
      ids.push(data!.operation_id);
    }
    let listed: string[] = [];
    for (let i = 0; i < 600 && listed.length < 2; i++) {
      const { data } = await operator.run(listAdminOperations({ client: operator.client, query: { pending_reason: 'needs_review' } }), {
        status: 200,
      });
      listed = data!.operations.map((o) => o.operation_id).filter((id) => ids.includes(id));
      if (listed.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed.sort()).toEqual([...ids].sort());
    const { data: seen } = await user.run(getOperation({ client: user.client, path: { operation_id: ids[0]! } }), { status: 200 });
    expect(seen).toMatchObject({ status: 'pending', pending_reason: 'needs_review', tx_hash: null });
    await operator.run(listAdminOperations({ client: operator.client, query: { pending_reason: 'bogus' as 'needs_review' } }), {
      status: 400,
      code: 'VALIDATION_FAILED',
    });

    // Resolve the first as paid, with the hash the chain shows paying its destination.
    const paid = (await chain.transfers(to[0] as `0x${string}`))[0]!;
    const body = {
      outcome: 'success' as const,
      tx_hash: paid.txHash,
      reason: 'Transfer log seen on the node directly',
      idempotency_key: randomUUID(),
    };
    const { data: resolved } = await operator.run(resolveOperation({ client: operator.client, path: { operation_id: ids[0]! }, body }), {
      status: 200,
    });
    expect(resolved).toMatchObject({
      status: 'success',
      tx_hash: paid.txHash,
      pending_reason: null,
      transactions: [{ hash: paid.txHash }],
    });
    // Audited in the resolution's own transaction (contract-tests/audit.test.ts leaves this write to this file).
    const { data: audit } = await operator.run(listAuditEntries({ client: operator.client, query: { limit: 10 } }), { status: 200 });
    expect(audit!.entries.filter((e) => e.operation_id === 'resolveOperation')).toEqual([
      expect.objectContaining({ operator: 'default', target: ids[0], status: 200, in_transaction: true, error_code: null }),
    ]);
    // Paid once: the first withdrawal left the books, the second is still reserved, nothing was refunded.
    const { data: avail } = await user.run(getAvailableBalance({ client: user.client }), { status: 200 });
    const { data: reserved } = await user.run(getReservedBalance({ client: user.client }), { status: 200 });
    expect([avail!.available_micros, reserved!.reserved_micros]).toEqual(['6000000', '2000000']);
    const again = await operator.run(resolveOperation({ client: operator.client, path: { operation_id: ids[0]! }, body }), { status: 200 });
    expect(again.response!.headers.get('idempotent-replayed')).toBe('true');
    await operator.run(
      resolveOperation({ client: operator.client, path: { operation_id: ids[0]! }, body: { ...body, idempotency_key: randomUUID() } }),
      {
        status: 409,
        code: 'OPERATION_NOT_IN_REVIEW',
      },
    );
    await operator.run(
      resolveOperation({ client: operator.client, path: { operation_id: randomUUID() }, body: { ...body, idempotency_key: randomUUID() } }),
      { status: 404, code: 'OPERATION_NOT_FOUND' },
    );
    const { tx_hash: _omitted, ...failedBody } = body;
    await operator.run(
      resolveOperation({
        client: operator.client,
        path: { operation_id: ids[1]! },
        body: { ...failedBody, outcome: 'success', idempotency_key: randomUUID() },
      }),
      { status: 400, code: 'VALIDATION_FAILED' },
    );

    // The node serves receipts again: the chain decides, not the operator.
    provider.showReceipts();
    await operator.run(
      resolveOperation({
        client: operator.client,
        path: { operation_id: ids[1]! },
        body: { ...failedBody, outcome: 'failed', idempotency_key: randomUUID() },
      }),
      { status: 409, code: 'CHAIN_HAS_RECEIPT' },
    );
    const { data: still } = await user.run(getOperation({ client: user.client, path: { operation_id: ids[1]! } }), { status: 200 });
    expect(still).toMatchObject({ status: 'pending', pending_reason: 'needs_review' });
  }, 120_000);
});
