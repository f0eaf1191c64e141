// The cold-wallet sweep in-process against anvil with Circle's USDC and a migrated PostgreSQL database
// (src/domain/settlement/onchain/cold-sweep.ts; docs/operations.md, "Custody"): it moves exactly the settlement
// wallet's excess over HOT_WALLET_MAX_MICROS and its pending withdrawals, once, even with two workers ticking at
// once; none opens while a withdrawal waits for funds; a signed sweep counts as in flight for withdrawals'
// funds check; the reconciliation counts the cold wallet.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../../config/load.js';
import { chainTxRepository } from '../../../db/repositories/chain-tx.repository.js';
import { ledgerCheckRepository } from '../../../db/repositories/ledger-check.repository.js';
import { db } from '../../../db/schema.js';
import { createLogger } from '../../../logger.js';
import { startTestChain, type TestChain } from '../../../testing/chain.js';
import { migratedOrm, type MigratedOrm } from '../../../testing/orm.js';
import { startOnchain } from './adapter.js';
import { createChain, type Chain } from '../../../adapters/chain/chain.js';
import { stepColdSweep, type ColdWallet } from './cold-sweep.js';
import { reconcile } from './reconcile.js';

const log = createLogger('silent');
const USDC = 1_000_000n;
let t: TestChain;
let m: MigratedOrm;
let chain: Chain;
let cold: ColdWallet;
beforeAll(async () => {
  t = await startTestChain({ usdc: 'circle', settlementUsdcMicros: 100n * USDC });
  m = await migratedOrm('coldsweep');
  chain = createChain(loadConfig(t.env).chain!);
  await startOnchain(m.orm.em.fork(), chain, log);
  cold = { address: privateKeyToAccount(generatePrivateKey()).address, hotMaxMicros: 30n * USDC };
}, 120_000);
afterAll(async () => {
  await chain?.close();
  await m?.close();
  await t?.stop();
});

const em = () => m.orm.em.fork();
const rows = async (q: string) => (await em().getConnection().execute(q)) as Array<Record<string, unknown>>;
const tick = () => stepColdSweep(em(), chain, chain.account, cold, log);
/** Ticks until no sweep is open (each tick is one step of the open sweep's transaction). */
async function sweepToEnd(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await tick();
    if (!(await rows(`select 1 from cold_sweeps where status = 'open'`)).length) return;
  }
  throw new Error('the cold sweep did not finish in 50 ticks');
}

async function pendingWithdrawal(amount: bigint, reason: string | null): Promise<string> {
  const user = randomUUID();
  const id = randomUUID();
  await rows(`insert into users (id, wallet_address) values ('${user}', '0x${user.replace(/-/g, '').padEnd(40, '0')}')`);
  await rows(
    `insert into operations (id, user_id, kind, amount, destination_address, pending_reason) values ('${id}', '${user}', 'withdraw', ${amount}, '0x${'12'.repeat(20)}', ${reason === null ? 'null' : `'${reason}'`})`,
  );
  return id;
}

describe('the cold-wallet sweep', () => {
  it('does not open while a withdrawal waits for funds', async () => {
    const id = await pendingWithdrawal(5n * USDC, 'hot_wallet_funds');
    expect(await tick()).toEqual({ idle: 'withdrawals_wait_for_funds' });
    expect(await rows('select * from cold_sweeps')).toHaveLength(0);
    await rows(`update operations set status = 'failed', failure_code = 'TEST', settled_at = now() where id = '${id}'`);
  });

  it('moves exactly the excess over the ceiling and the pending withdrawals, once, with two workers ticking', async () => {
    await pendingWithdrawal(10n * USDC, null); // held back: a pending withdrawal stays payable from the hot wallet
    await Promise.all([tick(), tick()]);
    const opened = await rows('select id, amount::text as amount from cold_sweeps');
    expect(opened).toEqual([{ id: expect.any(String), amount: String(60n * USDC) }]);
    await sweepToEnd();
    expect(await t.balanceOf(cold.address)).toBe(60n * USDC);
    expect(await t.balanceOf(t.settlement.address)).toBe(40n * USDC);
    const toCold = await t.transfers(cold.address);
    expect(toCold).toHaveLength(1);
    expect(toCold[0]).toMatchObject({ from: t.settlement.address, value: 60n * USDC });
    const [done] = await rows(`select status, tx_hash from cold_sweeps`);
    expect(done).toEqual({ status: 'done', tx_hash: toCold[0]!.txHash });
    expect(await rows(`select 1 from chain_transactions where purpose = 'cold_sweep'`)).toHaveLength(1);
    // Nothing above the ceiling is left: the next ticks open nothing.
    expect(await tick()).toEqual({ idle: 'below_ceiling' });
    expect(await rows('select 1 from cold_sweeps')).toHaveLength(1);
  }, 120_000);

  it('counts a signed, unmined sweep as in flight for withdrawals, within the fee cap, and the reconciliation counts the cold wallet', async () => {
    await t.fund(t.settlement.address, { usdcMicros: 20n * USDC }); // 60 USDC hot: 10 owed, 30 ceiling, 20 excess
    await t.anvil.rpc('evm_setAutomine', [false]);
    try {
      for (
        let i = 0;
        i < 5 && !(await rows(`select 1 from chain_transactions where purpose = 'cold_sweep' and receipt_status is null`)).length;
        i++
      )
        await tick();
      expect(await chainTxRepository(db(em())).withdrawalsInFlight(null)).toBe(20n * USDC);
      const fees = await rows(`select max_fee_per_gas::text as f from chain_transactions where purpose = 'cold_sweep'`);
      for (const f of fees) expect(BigInt(f.f as string)).toBeLessThanOrEqual(chain.settings.feeCap.maxFeePerGas);
    } finally {
      await t.anvil.rpc('evm_setAutomine', [true]);
    }
    await sweepToEnd();
    expect(await t.balanceOf(cold.address)).toBe(80n * USDC);
    expect(await chainTxRepository(db(em())).withdrawalsInFlight(null)).toBe(0n);
    const r = await reconcile(chain, ledgerCheckRepository(db(em())), cold);
    expect(r.cold_wallet_micros).toBe(String(80n * USDC));
    expect(r.settlement_wallet_micros).toBe(String(40n * USDC));
    expect(BigInt(r.held_micros)).toBe(120n * USDC);
  }, 120_000);
});
