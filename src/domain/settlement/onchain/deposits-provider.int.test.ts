// The custodial deposit listener and the reconciliation behind a provider as hosted ones behave (the stand-in,
// src/testing/rpc-provider.ts), on Circle's USDC: eth_getLogs capped at QuickNode's 5 blocks (HTTP 413), 429s with
// Retry-After, and a lagging backend (`[]`/`null` for the newest blocks while eth_blockNumber is ahead). Every
// transfer is credited exactly once; a cursor that went past a transfer (a backend that answered `[]` for a block
// another one had) is caught up by the trailing window; a deposit nothing credited shows in the reconciliation
// as uncredited funds, not as backing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/load.js';
import { ledgerCheckRepository } from '../../../db/repositories/ledger-check.repository.js';
import { db } from '../../../db/schema.js';
import { createLogger } from '../../../logger.js';
import { startTestChain, type TestChain } from '../../../testing/chain.js';
import { ledgerProblems } from '../../../testing/money.js';
import { migratedOrm, type MigratedOrm } from '../../../testing/orm.js';
import { startProviderProxy, type ProviderProxy } from '../../../testing/rpc-provider.js';
import { userBalances } from '../../ledger/ledger.js';
import { createOnchainSettlement } from './adapter.js';
import { createChain, type Chain } from '../../../adapters/chain/chain.js';
import { DEPOSIT_CURSOR, scanDeposits, type ScanResult } from './deposits.js';
import { reconcile } from './reconcile.js';
import { balancesByBatch, balancesOf, hasMulticall3, MULTICALL3_ADDRESS } from './balances.js';
import { installMulticall3 } from '../../../testing/multicall3.js';
import { privateKeyToAddress, generatePrivateKey } from 'viem/accounts';

const log = createLogger('silent');
let t: TestChain;
let m: MigratedOrm;
let proxy: ProviderProxy;
let chain: Chain;
/** The same provider, without a trailing window (CHAIN_DEPOSIT_REREAD_BLOCKS=0): what the listener did before. */
let noWindow: Chain;
beforeAll(async () => {
  t = await startTestChain({ confirmations: 2, usdc: 'circle' });
  m = await migratedOrm('custprov');
  proxy = await startProviderProxy({ upstream: t.anvil.url });
  const env = { ...t.env, CHAIN_RPC_URL: proxy.url, CHAIN_CONFIRMATIONS: '2', CHAIN_LOG_BLOCK_RANGE: '40' };
  chain = createChain(loadConfig({ ...env, CHAIN_DEPOSIT_REREAD_BLOCKS: '8' }).chain!);
  noWindow = createChain(loadConfig({ ...env, CHAIN_DEPOSIT_REREAD_BLOCKS: '0' }).chain!);
}, 120_000);
afterAll(async () => {
  await chain?.close();
  await noWindow?.close();
  await proxy?.stop();
  await m?.close();
  await t?.stop();
});

const em = () => m.orm.em.fork();
const sqlOf = () => em().getConnection();
const count = async (q: string) => Number(((await sqlOf().execute(q))[0] as { n: number }).n);

async function newUser(): Promise<{ id: string; address: `0x${string}` }> {
  const id = randomUUID();
  await sqlOf().execute(`insert into users (id, wallet_address) values ('${id}', '0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}')`);
  const w = await createOnchainSettlement(chain, log).depositWallet(em(), id);
  return { id, address: w.address as `0x${string}` };
}

/** Scans until a scan credits nothing more and is not behind, mining a block between scans (at most `max`). */
async function scanUntilQuiet(c: Chain, max = 40): Promise<ScanResult[]> {
  const results: ScanResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = await scanDeposits(em(), c, log);
    results.push(r);
    if (!r.behind && r.credited === 0 && i > 0) break;
    await t.anvil.mine(1);
  }
  return results;
}

describe('the deposit listener behind a hosted provider', () => {
  let users: Array<{ id: string; address: `0x${string}` }>;
  const amounts = [1_100_001n, 2_200_002n, 3_300_003n, 4_400_004n, 5_500_005n, 6_600_006n];

  it('credits every transfer exactly once through range caps, 429s and a lagging backend', async () => {
    users = [await newUser(), await newUser(), await newUser()];
    await scanDeposits(em(), chain, log); // the cursor starts before any transfer
    const sender = await t.newWallet(100_000_000n);
    for (const [i, a] of amounts.entries()) {
      await t.transfer(sender, users[i % 3]!.address, a);
      await t.anvil.mine(3);
    }
    proxy.capLogs('quicknode'); // 5 blocks, HTTP 413
    proxy.rateLimit({ requests: 3, retryAfterSeconds: 1 });
    proxy.lag(4);
    const lagging = await scanUntilQuiet(chain, 6);
    expect(lagging.some((r) => r.behind)).toBe(true); // never past what the answering node has
    expect(lagging.some((r) => (r.refused ?? 0) > 0)).toBe(true); // 413: the range halved
    expect(proxy.stats().rateLimited).toBeGreaterThan(0);
    proxy.lag(0);
    const results = [...lagging, ...(await scanUntilQuiet(chain))];
    expect(results.reduce((n, r) => n + r.credited, 0)).toBe(6);
    expect(await count(`select count(*)::int as n from chain_deposits`)).toBe(6);
    for (const [i, u] of users.entries()) expect((await userBalances(em(), u.id)).available).toBe(amounts[i]! + amounts[i + 3]!);
    // Scanned again and again: the trailing window re-reads, nothing is credited twice.
    await scanUntilQuiet(chain, 3);
    expect(await count(`select count(*)::int as n from chain_deposits`)).toBe(6);
    const c = await pgClient();
    expect(await ledgerProblems(c)).toEqual([]);
    await c.end();
    proxy.reset();
  }, 180_000);

  it('a cursor moved past a transfer nothing credited: the trailing window credits it; without one, reconciliation reports it uncredited', async () => {
    const sender = await t.newWallet(10_000_000n);
    await t.transfer(sender, users[0]!.address, 700_007n);
    await t.anvil.mine(3);
    // As if a backend had answered `[]` for the transfer's block and the cursor had moved past it.
    const head = await t.client.getBlock({ blockTag: 'latest' });
    const confirmedN = head.number - 1n;
    const confirmed = await t.client.getBlock({ blockNumber: confirmedN });
    await sqlOf().execute(
      `update chain_cursors set block_number = ${confirmedN}, block_hash = '${confirmed.hash}' where name = '${DEPOSIT_CURSOR}'`,
    );
    expect(await scanDeposits(em(), noWindow, log)).toMatchObject({ credited: 0 });
    const before = await reconcile(noWindow, ledgerCheckRepository(db(em())));
    expect(before.uncredited_micros).toBe('700007');
    expect(before.uncredited_addresses).toEqual([{ address: users[0]!.address, micros: '700007' }]);
    expect(before.deficit).toBe(false);
    expect(BigInt(before.surplus_micros)).toBe(BigInt(before.held_micros) - 700_007n - BigInt(before.owed_micros));
    expect(await scanDeposits(em(), chain, log)).toMatchObject({ credited: 1 });
    const after = await reconcile(chain, ledgerCheckRepository(db(em())));
    expect(after.uncredited_micros).toBe('0');
    expect(after.deposit_addresses).toBe(3);
    expect((await userBalances(em(), users[0]!.id)).available).toBe(amounts[0]! + amounts[3]! + 700_007n);
  }, 120_000);

  it('reads balances through Multicall3 once it is deployed (3 eth_calls for 1,204 addresses), the same figures as without', async () => {
    const empty = Array.from({ length: 1200 }, () => privateKeyToAddress(generatePrivateKey()));
    const owners = [t.settlement.address, ...users.map((u) => u.address), ...empty];
    const fresh = createChain(loadConfig({ ...t.env, CHAIN_RPC_URL: proxy.url }).chain!);
    try {
      expect(await hasMulticall3(fresh)).toBe(false); // a fresh anvil has none: one balanceOf call each
      proxy.resetCounts();
      const plain = await balancesOf(fresh, owners);
      expect(proxy.counts()['eth_call']).toBe(owners.length);
      const books = await reconcile(fresh, ledgerCheckRepository(db(em())));

      await installMulticall3(t.anvil);
      proxy.resetCounts();
      const batched = await balancesOf(fresh, owners);
      expect(batched).toEqual(plain);
      expect(batched.slice(1, 4)).toEqual(await Promise.all(users.map((u) => t.balanceOf(u.address))));
      expect(proxy.counts()).toEqual({ eth_getCode: 1, eth_call: 3 }); // 500 + 500 + 204
      expect(proxy.stats().requests).toBe(3); // the code check, then 2 JSON-RPC batches (MULTICALL_GROUP = 2 eth_calls each)
      const { eth_call: plainCalls } = (proxy.resetCounts(), await balancesByBatch(fresh, owners), proxy.counts());
      expect(plainCalls).toBe(owners.length);
      proxy.resetCounts();
      expect(await reconcile(fresh, ledgerCheckRepository(db(em())))).toEqual(books);
      expect(proxy.counts()['eth_call']).toBe(1); // settlement wallet + 3 deposit addresses in one aggregate3
      expect(proxy.counts()['eth_getCode']).toBeUndefined(); // remembered
    } finally {
      await fresh.close();
      await t.anvil.rpc('anvil_setCode', [MULTICALL3_ADDRESS, '0x']);
    }
  }, 60_000);
});

async function pgClient() {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: m.db.url });
  await c.connect();
  return c;
}
