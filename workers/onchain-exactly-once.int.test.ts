// Exactly once on the chain, whatever happens to the workers process or the node (PostgreSQL + Redis, an
// API process, anvil mining a block a second): the workers process SIGKILLed (a) after signing and before
// broadcasting, (b) after broadcasting and before the receipt, (c) after recording the receipt and before the
// ledger posting; each time a restarted worker finishes the withdrawal from what was stored (never a second
// signature), its destination gets exactly one Transfer and the ledger one posting. The node unreachable
// for 20 s: the withdrawal settles after. A transaction stuck under a low fee is replaced at the same nonce
// and mined once. The ledger and the onchain reconciliation are checked after each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOperation } from '../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startOnchainStack, type OnchainStack, type OnchainUser } from '../src/testing/onchain-stack.js';

let s: OnchainStack;
let user: OnchainUser;
beforeAll(async () => {
  s = await startOnchainStack({
    label: 'chainonce',
    deployment: 'redis',
    noWorkers: true,
    proxy: true,
    chain: { blockTime: 1, confirmations: 2 },
    env: { CHAIN_REPLACE_AFTER_MS: '1500' },
  });
  const w = await s.startWorkers();
  user = await s.fundedUser(50_000_000n);
  expect(await w.stop('SIGTERM')).toBe(0);
  s.workers.length = 0;
}, 120_000);
afterAll(async () => s?.stop());

const withdraw = async (micros: number) => {
  const w = await s.withdraw(user, micros);
  expect(w.status).toBe(202);
  return w;
};
const sentRows = (id: string) => s.sentRows(id);
const operationStatus = async (id: string) =>
  (await sent(getOperation({ client: sdkClient(s.apis[0]!.baseUrl, user.token), path: { operation_id: id } }))).data?.status;
const until = async <T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Settled exactly once: success, one Transfer to the destination in the hash answered, one settle posting, books square. */
async function expectPaidOnce(id: string, to: `0x${string}`, micros: number) {
  expect(await s.paidOnceProblems(user, id, to, micros)).toEqual([]);
  return s.final(user, id);
}

describe('the workers process SIGKILLed mid-withdrawal', () => {
  it.each([
    ['after signing, before broadcasting', 'chain:afterSign'],
    ['after broadcasting, before the receipt', 'chain:afterBroadcast'],
    ['after the receipt, before the ledger posting', 'chain:afterReceipt'],
  ])(
    '%s: the restarted worker finishes it from what was stored, paying once',
    async (_when, failpoint) => {
      const dying = await s.startWorkers({ FAILPOINTS: `${failpoint}=kill` });
      const exited = new Promise((r) => dying.proc.once('exit', r));
      const { id, to } = await withdraw(1_100_000);
      await exited;
      s.workers.splice(s.workers.indexOf(dying), 1);
      const atKill = await sentRows(id);
      expect(atKill).toHaveLength(1); // signed and stored once, before any broadcast
      if (failpoint === 'chain:afterSign') {
        await s.chain.anvil.mine(2);
        expect(await s.chain.transfers(to)).toEqual([]); // never broadcast
      }
      if (failpoint === 'chain:afterReceipt') expect(atKill[0]!.receipt_status).toBe('success');
      const status = await operationStatus(id);
      expect(status).toBe('pending');

      const worker = await s.startWorkers();
      const op = await expectPaidOnce(id, to, 1_100_000);
      // The stored bytes were re-broadcast, never signed anew.
      expect(await sentRows(id)).toEqual([expect.objectContaining({ hash: atKill[0]!.hash, attempt: 0, receipt_status: 'success' })]);
      expect(op.tx_hash).toBe(atKill[0]!.hash);
      expect(await worker.stop('SIGTERM')).toBe(0);
      s.workers.splice(s.workers.indexOf(worker), 1);
    },
    150_000,
  );
});

describe('the node', () => {
  it('unreachable for 20 s: the withdrawal waits, then settles once', async () => {
    const worker = await s.startWorkers();
    await s.proxy!.pause();
    const { id, to } = await withdraw(1_200_000);
    await new Promise((r) => setTimeout(r, 20_000));
    expect(await operationStatus(id)).toBe('pending');
    await s.proxy!.resume();
    await expectPaidOnce(id, to, 1_200_000);
    expect(await worker.stop('SIGTERM')).toBe(0);
    s.workers.splice(s.workers.indexOf(worker), 1);
  }, 150_000);

  it('a transaction stuck under a low fee is replaced at the same nonce and mined once', async () => {
    const worker = await s.startWorkers();
    const { anvil } = s.chain;
    await anvil.rpc('evm_setIntervalMining', [0]);
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      const { id, to } = await withdraw(1_300_000);
      const first = await until('the first signature', async () => (await sentRows(id))[0]);
      // The chain's base fee jumps past what the first transaction offers: it cannot be included.
      const high = BigInt(first.max_fee) * 4n;
      await anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await anvil.mine(1);
      expect(await s.chain.transfers(to)).toEqual([]);
      // After CHAIN_REPLACE_AFTER_MS the worker re-signs the same nonce, paying the new fee level.
      const rows = await until('a replacement that pays the new base fee', async () => {
        const r = await sentRows(id);
        return r.length > 1 && BigInt(r.at(-1)!.max_fee) > high ? r : undefined;
      });
      expect(new Set(rows.map((r) => r.nonce)).size).toBe(1);
      await anvil.rpc('evm_setIntervalMining', [1]);
      const op = await expectPaidOnce(id, to, 1_300_000);
      const final = await sentRows(id);
      const mined = final.filter((r) => r.receipt_status === 'success');
      expect(mined).toHaveLength(1);
      expect(mined[0]!.attempt).toBeGreaterThan(0);
      expect(op.tx_hash).toBe(mined[0]!.hash);
      // Every hash the operation sent is kept.
      expect(final.length).toBeGreaterThanOrEqual(2);
    } finally {
      await anvil.rpc('evm_setIntervalMining', [1]);
    }
    expect(await worker.stop('SIGTERM')).toBe(0);
    s.workers.splice(s.workers.indexOf(worker), 1);
  }, 150_000);
});
