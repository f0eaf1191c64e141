// Sweeps in-process against anvil with Circle's USDC and a migrated PostgreSQL database (sweeps.ts;
// docs/settlement-custodial.md): two sweepers at once send one top-up, whatever the order they read and record in.
// The interleaving that once sent a second top-up (seen on CI after a crash: a stalled tick and the restarted
// worker's own tick at once) is forced here, not hoped for: sweeper A reads the sweep's top-up open, and while A
// reads the address's ETH, sweeper B records that top-up; A then drives a top-up it finds recorded.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/load.js';
import { createLogger } from '../../../logger.js';
import { startTestChain, type TestChain } from '../../../testing/chain.js';
import { migratedOrm, type MigratedOrm } from '../../../testing/orm.js';
import { createChain, type Chain } from '../../../adapters/chain/chain.js';
import { createOnchainSettlement, startOnchain } from './adapter.js';
import { scanDeposits } from './deposits.js';
import { freshTopUpStands, stepSweeps } from './sweeps.js';

const log = createLogger('silent');
let t: TestChain;
let m: MigratedOrm;
let chain: Chain;
beforeAll(async () => {
  t = await startTestChain({ usdc: 'circle' });
  m = await migratedOrm('sweeps');
  chain = createChain(loadConfig({ ...t.env, DEPOSIT_SWEEP_MIN_MICROS: '1' }).chain!);
  await startOnchain(m.orm.em.fork(), chain, log);
}, 120_000);
afterAll(async () => {
  await chain?.close();
  await m?.close();
  await t?.stop();
});

const em = () => m.orm.em.fork();
const rows = async (q: string, params: unknown[] = []) => (await em().getConnection().execute(q, params)) as Array<Record<string, unknown>>;
/** The sweep's transactions, oldest first. */
const sweepTxs = (address: string) =>
  rows(
    `select c.from_address, c.nonce::int as nonce, c.receipt_status from chain_transactions c
       join deposit_sweeps w on w.id = c.sweep_id where w.address = ? order by c.created_at`,
    [address],
  );

/** A custodial deposit address holding `micros`, credited: due for a sweep. */
async function creditedAddress(micros: bigint): Promise<string> {
  const userId = randomUUID();
  await rows(`insert into users (id, wallet_address) values (?, ?)`, [userId, `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`]);
  const { address } = await createOnchainSettlement(chain, log).depositWallet(em(), userId);
  if (!address) throw new Error('no custodial deposit address: DEPOSIT_MNEMONIC is unset');
  await t.fund(address as `0x${string}`, { usdcMicros: micros });
  await t.anvil.mine(1);
  expect(await scanDeposits(em(), chain, log)).toMatchObject({ credited: 1 });
  return address;
}

describe('freshTopUpStands', () => {
  it('allows a fresh top-up only when none was open at the decision and none was signed since', () => {
    expect(freshTopUpStands({ all: 0, open: 0 }, 0)).toBe(true);
    expect(freshTopUpStands({ all: 1, open: 0 }, 1)).toBe(true); // a fee rise: the recorded one no longer covers a transfer
    expect(freshTopUpStands({ all: 1, open: 1 }, 1)).toBe(false); // it drove an open one (recorded meanwhile)
    expect(freshTopUpStands({ all: 0, open: 0 }, 1)).toBe(false); // another sweeper signed one after the read
  });
});

describe('two sweepers at once', () => {
  it('send one top-up when the other records it while one reads the address ETH', async () => {
    const address = await creditedAddress(3_000_000n);
    // Opens the sweep and signs the top-up; anvil mines it at once (not recorded yet: the receipt is read next tick).
    await stepSweeps(em(), chain, log);
    expect(await sweepTxs(address)).toEqual([{ from_address: chain.settlementAddress, nonce: expect.any(Number), receipt_status: null }]);

    // Sweeper A's node: its balance read lets sweeper B run a whole tick first (B records the top-up).
    let interleaved = 0;
    const client = new Proxy(chain.client, {
      get(target, prop, receiver) {
        if (prop !== 'getBalance') return Reflect.get(target, prop, receiver) as unknown;
        return async (args: Parameters<typeof target.getBalance>[0]) => {
          if (!interleaved++) await stepSweeps(em(), chain, log);
          return target.getBalance(args);
        };
      },
    });
    await stepSweeps(em(), { ...chain, client }, log);
    expect(interleaved).toBeGreaterThan(0);
    expect(await sweepTxs(address)).toEqual([
      { from_address: chain.settlementAddress, nonce: expect.any(Number), receipt_status: 'success' },
    ]);

    for (let i = 0; i < 20 && (await rows(`select 1 from deposit_sweeps where status in ('topup', 'transfer')`)).length; i++) {
      await stepSweeps(em(), chain, log);
      await t.anvil.mine(1);
    }
    const txs = await sweepTxs(address);
    expect(txs.map((r) => [r.from_address, r.receipt_status])).toEqual([
      [chain.settlementAddress, 'success'],
      [address, 'success'],
    ]);
    expect(await t.balanceOf(address as `0x${string}`)).toBe(0n);
  });
});
