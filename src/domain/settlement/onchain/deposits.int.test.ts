// The custodial deposit listener in-process against a real anvil and a real migrated PostgreSQL database
// (docs/settlement-custodial.md): two listeners scanning at once credit each Transfer once; a cursor sent back
// (a restart from an old state, or a node answering the same logs again) credits nothing twice; a
// reorganisation deeper than CHAIN_CONFIRMATIONS below the cursor stops the listener instead of crediting on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../config/load.js';
import { createLogger } from '../../../logger.js';
import { startTestChain, type TestChain } from '../../../testing/chain.js';
import { ledgerProblems } from '../../../testing/money.js';
import { migratedOrm, type MigratedOrm } from '../../../testing/orm.js';
import { userBalances } from '../../ledger/ledger.js';
import { createOnchainSettlement } from './adapter.js';
import { createChain, type Chain } from '../../../adapters/chain/chain.js';
import { DEPOSIT_CURSOR, scanDeposits } from './deposits.js';

const log = createLogger('silent');
let t: TestChain;
let m: MigratedOrm;
let chain: Chain;
beforeAll(async () => {
  t = await startTestChain({ confirmations: 2 });
  m = await migratedOrm('custscan');
  chain = createChain(loadConfig({ ...t.env, CHAIN_CONFIRMATIONS: '2', CHAIN_LOG_BLOCK_RANGE: '3' }).chain!);
}, 60_000);
afterAll(async () => {
  await chain?.close();
  await m?.close();
  await t?.stop();
});

const em = () => m.orm.em.fork();
const sqlOf = () => em().getConnection();
const row = async (q: string) => (await sqlOf().execute(q))[0]! as Record<string, unknown>;
const count = async (table: string) => Number((await row(`select count(*)::int as n from ${table}`)).n);
const cursor = async () =>
  (await sqlOf().execute(`select block_number::text as n, block_hash as h from chain_cursors where name = '${DEPOSIT_CURSOR}'`))[0] as {
    n: string;
    h: string;
  };
const pgClient = async () => {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: m.db.url });
  await c.connect();
  return c;
};

async function newUser(): Promise<{ id: string; address: `0x${string}` }> {
  const id = randomUUID();
  await sqlOf().execute(`insert into users (id, wallet_address) values ('${id}', '0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}')`);
  const w = await createOnchainSettlement(chain, log).depositWallet(em(), id);
  return { id, address: w.address as `0x${string}` };
}

describe('the custodial deposit listener', () => {
  let users: Array<{ id: string; address: `0x${string}` }>;
  const amounts = [1_000_001n, 2_000_002n, 3_000_003n, 4_000_004n, 5_000_005n, 6_000_006n];

  it('two listeners at once credit every confirmed transfer exactly once', async () => {
    users = [await newUser(), await newUser(), await newUser()];
    const sender = await t.newWallet(100_000_000n);
    for (const [i, a] of amounts.entries()) await t.transfer(sender, users[i % 3]!.address, a);
    await t.anvil.mine(1); // the last transfer: 2 confirmations
    const results = await Promise.all([scanDeposits(em(), chain, log), scanDeposits(em(), chain, log), scanDeposits(em(), chain, log)]);
    expect(results.reduce((n, r) => n + r.credited, 0)).toBe(6);
    expect(await count('chain_deposits')).toBe(6);
    expect(Number((await row(`select count(*)::int as n from operations where kind = 'deposit' and status = 'success'`)).n)).toBe(6);
    for (const [i, u] of users.entries()) {
      expect((await userBalances(em(), u.id)).available).toBe(amounts[i]! + amounts[i + 3]!);
    }
    const c = await pgClient();
    expect(await ledgerProblems(c)).toEqual([]);
    await c.end();
  });

  it('a cursor sent back (an old state, the node answering the same logs again) credits nothing twice', async () => {
    const head = await cursor();
    const first = (await row(`select min(from_block)::text as n from deposit_addresses`)).n as string;
    const hash = (await t.client.getBlock({ blockNumber: BigInt(first) })).hash;
    await sqlOf().execute(`update chain_cursors set block_number = ${first}, block_hash = '${hash}'`);
    const again = await scanDeposits(em(), chain, log);
    expect(again).toMatchObject({ credited: 0, cursor: head.n });
    expect(again.ranges).toBeGreaterThan(1); // several eth_getLogs ranges of CHAIN_LOG_BLOCK_RANGE=3
    expect(await count('chain_deposits')).toBe(6);
    expect((await userBalances(em(), users[0]!.id)).available).toBe(amounts[0]! + amounts[3]!);
  });

  it('a reorganisation deeper than the confirmations below the cursor stops the listener', async () => {
    const sender = await t.newWallet(10_000_000n);
    await t.transfer(sender, users[0]!.address, 700_000n);
    await t.anvil.mine(1);
    expect(await scanDeposits(em(), chain, log)).toMatchObject({ credited: 1 });
    const at = await cursor();
    await t.anvil.rpc('anvil_reorg', [3, []]); // the last 3 blocks replaced: the cursor's block among them
    await t.anvil.mine(3);
    const result = await scanDeposits(em(), chain, log);
    expect(result).toMatchObject({ reorg: true, credited: 0 });
    expect(await cursor()).toEqual(at); // not moved: nothing more is credited until an operator looks
  });
});
