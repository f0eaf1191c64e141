// The external signer (SETTLEMENT_SIGNER_URL; src/adapters/chain/remote-signer.ts) against a real anvil
// chain with Circle's USDC and a migrated PostgreSQL database: a second anvil holds the settlement wallet's key and
// answers eth_signTransaction, the service's settings carry no key (SETTLEMENT_ADDRESS only). A withdrawal is
// signed by it and paid once; a signer that is down or refuses leaves nothing stored, no nonce taken, and the
// withdrawal waiting with pending_reason `signer`, then paid once the signer answers again.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../../config/load.js';
import { createLogger } from '../../../logger.js';
import { startAnvil, type Anvil } from '../../../testing/anvil.js';
import { startTestChain, type TestChain } from '../../../testing/chain.js';
import { migratedOrm, type MigratedOrm } from '../../../testing/orm.js';
import { startOnchain } from './adapter.js';
import { createChain, type Chain } from '../../../adapters/chain/chain.js';
import { remoteSigner } from '../../../adapters/chain/remote-signer.js';
import { advanceOnchain } from './sender.js';

const log = createLogger('silent');
const USDC = 1_000_000n;
let t: TestChain;
let signerNode: Anvil;
let refuser: Server;
let refuserUrl: string;
let m: MigratedOrm;
const chains: Chain[] = [];
let envNoKey: Record<string, string>;

beforeAll(async () => {
  t = await startTestChain({ usdc: 'circle', settlementUsdcMicros: 100n * USDC });
  signerNode = await startAnvil({}); // holds anvil's default accounts, the settlement wallet's key among them
  refuser = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'policy: destination not allowed' } })),
    );
  });
  await new Promise<void>((r) => refuser.listen(0, '127.0.0.1', r));
  refuserUrl = `http://127.0.0.1:${(refuser.address() as { port: number }).port}`;
  m = await migratedOrm('remotesigner');
  const { SETTLEMENT_PRIVATE_KEY: _key, ...rest } = t.env;
  envNoKey = { ...rest, SETTLEMENT_ADDRESS: t.settlement.address };
}, 120_000);
afterAll(async () => {
  for (const c of chains) await c.close();
  await m?.close();
  await new Promise((r) => refuser?.close(r));
  await signerNode?.stop();
  await t?.stop();
});

const em = () => m.orm.em.fork();
const rows = async (q: string) => (await em().getConnection().execute(q)) as Array<Record<string, unknown>>;
function chainWith(signerUrl: string): Chain {
  const settings = loadConfig({ ...envNoKey, SETTLEMENT_SIGNER_URL: signerUrl }).chain!;
  expect(settings.settlementKey).toBeUndefined();
  const c = createChain(settings);
  chains.push(c);
  return c;
}

async function pendingWithdrawal(amount: bigint, to: string): Promise<string> {
  const user = randomUUID();
  const id = randomUUID();
  await rows(`insert into users (id, wallet_address) values ('${user}', '0x${user.replace(/-/g, '').padEnd(40, '0')}')`);
  await rows(
    `insert into operations (id, user_id, kind, amount, destination_address) values ('${id}', '${user}', 'withdraw', ${amount}, '${to}')`,
  );
  return id;
}
const opRow = async (id: string) => (await rows(`select pending_reason from operations where id = '${id}'`))[0]!;
const attempts = async (id: string) => rows(`select hash, receipt_status from chain_transactions where operation_id = '${id}'`);

describe('SETTLEMENT_SIGNER_URL', () => {
  it('signs a withdrawal through the external signer; the service holds no key', async () => {
    const chain = chainWith(signerNode.url);
    await startOnchain(em(), chain, log);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const id = await pendingWithdrawal(7n * USDC, to);
    expect(await advanceOnchain(em(), chain, chain.account, id, { log })).toBe('recorded');
    expect(await attempts(id)).toEqual([{ hash: expect.any(String), receipt_status: 'success' }]);
    expect(await t.balanceOf(to)).toBe(7n * USDC);
    const [paid] = await t.transfers(to);
    expect(paid).toMatchObject({ from: t.settlement.address, value: 7n * USDC });
  }, 120_000);

  it('signer down or refusing: nothing stored, no nonce taken, the withdrawal waits (signer); paid once it signs', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const id = await pendingWithdrawal(3n * USDC, to);
    const nonceBefore = await rows(`select next_nonce::text as n from chain_nonces`);
    for (const url of ['http://127.0.0.1:1', refuserUrl]) {
      const down = chainWith(url);
      expect(await advanceOnchain(em(), down, down.account, id, { log })).toBe('deferred');
      expect(await opRow(id)).toEqual({ pending_reason: 'signer' });
      expect(await attempts(id)).toEqual([]);
      expect(await rows(`select next_nonce::text as n from chain_nonces`)).toEqual(nonceBefore);
    }
    expect(await t.balanceOf(to)).toBe(0n);
    const chain = chainWith(signerNode.url);
    expect(await advanceOnchain(em(), chain, chain.account, id, { log })).toBe('recorded');
    expect(await attempts(id)).toEqual([{ hash: expect.any(String), receipt_status: 'success' }]);
    expect(await t.balanceOf(to)).toBe(3n * USDC);
  }, 120_000);

  it('bytes signed by another account, or for another transaction, are refused (never stored or broadcast)', async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    const tx = {
      type: 'eip1559' as const,
      chainId: 31337,
      nonce: 5,
      to: other.address,
      value: 0n,
      gas: 21_000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 1n,
    };
    const answers = [await other.signTransaction(tx), await t.settlement.signTransaction({ ...tx, nonce: 6 })];
    const liar = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: answers.shift() })));
    });
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(liar.address() as { port: number }).port}`;
      const signer = remoteSigner(url, t.settlement.address);
      await expect(signer.signTransaction(tx)).rejects.toMatchObject({
        name: 'SignerUnavailable',
        kind: 'mismatch',
        message: expect.stringMatching(/signed as/),
      });
      await expect(signer.signTransaction(tx)).rejects.toMatchObject({
        name: 'SignerUnavailable',
        kind: 'mismatch',
        message: expect.stringMatching(/different transaction/),
      });
    } finally {
      await new Promise((r) => liar.close(r));
    }
  });
});
