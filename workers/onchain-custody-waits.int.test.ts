// Issue 33's "wait, don't fail" and fee policy against Circle's own USDC on anvil (an API and a workers process on
// PostgreSQL + Redis; docs/settlement.md, "Wait, don't fail" and "Fees"). A withdrawal the settlement wallet cannot
// cover (USDC; gas, the OP-stack L1 data fee included; a paused token) signs nothing, waits with its documented
// pending_reason and is paid exactly once when it can be; over 20 replacement rounds with mining stopped no
// transaction is signed above CHAIN_MAX_FEE_PER_GAS_WEI / CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI and the withdrawal waits
// as `fee_cap`. `ledger:check` is clean after each (paidOnceProblems).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, hexToBigInt, keccak256, parseEther, toHex } from 'viem';
import { until } from '../src/testing/custodial.js';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';
import { installGasPriceOracle, type L1FeeOracle } from '../src/testing/op-stack.js';

const USDC = 1_000_000;
const REPLACE_AFTER_MS = 400;
const MAX_FEE = 5_000_000_000n; // 5 gwei
const MAX_TIP = 2_000_000_000n; // 2 gwei
let s: OnchainStack;
let oracle: L1FeeOracle;

beforeAll(async () => {
  s = await startOnchainStack({
    label: 'custodywaits',
    deployment: 'redis',
    chain: { blockTime: 1, confirmations: 1 },
    env: {
      CHAIN_WAIT_RECHECK_MS: '300',
      CHAIN_REPLACE_AFTER_MS: String(REPLACE_AFTER_MS),
      CHAIN_MAX_FEE_PER_GAS_WEI: MAX_FEE.toString(),
      CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI: MAX_TIP.toString(),
    },
    chainEnv: async (chain) => {
      oracle = await installGasPriceOracle(chain.anvil, 0n);
      return { CHAIN_OP_STACK: 'true' };
    },
  });
}, 120_000);
afterAll(async () => s?.stop());

const op = async (id: string) =>
  (await s.sql.query(`select status, pending_reason from operations where id = $1`, [id])).rows[0] as {
    status: string;
    pending_reason: string | null;
  };
const signed = async (id: string) => (await s.sentRows(id)).length;
const settlement = () => s.chain.settlement.address;
// Circle's FiatTokenV2_2 keeps a balance in `balanceAndBlacklistStates` (the high bit is the blacklist flag), which
// anvil_dealERC20 cannot find: its slot is found by reading, then written directly (the balance is below 2^255).
async function setUsdc(micros: number) {
  const balanceSlot = async () => {
    const balance = await s.chain.balanceOf(settlement());
    for (let slot = 0n; slot < 32n; slot++) {
      const key = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [settlement(), slot]));
      if (hexToBigInt((await s.chain.client.getStorageAt({ address: s.chain.token, slot: key })) ?? '0x0') === balance) return key;
    }
    throw new Error('no balance slot found');
  };
  await s.chain.anvil.rpc('anvil_setStorageAt', [s.chain.token, await balanceSlot(), toHex(micros, { size: 32 })]);
}
const setGas = (wei: bigint) => s.chain.anvil.rpc('anvil_setBalance', [settlement(), toHex(wei)]);

/** Waits until the operation waits with `reason`, then checks it stays so, unsigned, for a few rechecks. */
async function waitsAs(id: string, reason: string) {
  await until(s, `operation ${id} waiting as ${reason}`, async () => (await op(id)).pending_reason === reason);
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 400));
    expect(await op(id)).toEqual({ status: 'pending', pending_reason: reason });
    expect(await signed(id)).toBe(0);
  }
}

describe('wait, do not fail (issue 33 item 4)', () => {
  it('a withdrawal larger than the hot wallet waits as hot_wallet_funds, signs nothing, and is paid once after a top-up', async () => {
    const u = await s.fundedUser(10n * BigInt(USDC));
    await setUsdc(3 * USDC); // the rest is "in the cold wallet"
    const w = await s.withdraw(u, 8 * USDC);
    expect(w.status).toBe(202);
    await waitsAs(w.id, 'hot_wallet_funds');
    await setUsdc(10 * USDC); // the operator refills
    expect(await s.paidOnceProblems(u, w.id, w.to, 8 * USDC)).toEqual([]);
  }, 120_000);

  it('no gas for the transfer and its L1 data fee waits as gas, then is paid once after funding', async () => {
    const u = await s.fundedUser(5n * BigInt(USDC));
    // 0.01 ETH covers the L2 execution fee many times over; the L1 data fee of 0.05 ETH does not fit.
    await setGas(parseEther('0.01'));
    await oracle.setL1Fee(parseEther('0.05'));
    const w = await s.withdraw(u, 2 * USDC);
    await waitsAs(w.id, 'gas');
    await setGas(parseEther('100'));
    expect(await s.paidOnceProblems(u, w.id, w.to, 2 * USDC)).toEqual([]);
    await oracle.setL1Fee(0n);
  }, 120_000);

  it('a paused token waits as token_paused, then is paid once after unpause', async () => {
    const u = await s.fundedUser(5n * BigInt(USDC));
    await s.chain.usdc!.pause();
    const w = await s.withdraw(u, 2 * USDC);
    await waitsAs(w.id, 'token_paused');
    await s.chain.usdc!.unpause();
    expect(await s.paidOnceProblems(u, w.id, w.to, 2 * USDC)).toEqual([]);
  }, 120_000);
});

describe('the fee cap (issue 33 item 2)', () => {
  // The network asks more than the cap: every block is mined by hand with a base fee of 20 gwei (cap: 5 gwei), so
  // the withdrawal's transaction cannot be included and the node's estimate stays above the cap for 20 rounds.
  const highBlock = async (baseFeeWei: bigint) => {
    await s.chain.anvil.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(baseFeeWei)]);
    await s.chain.anvil.mine(1);
  };

  it('over 20 replacement rounds above the cap, nothing is signed above it; it waits as fee_cap and is paid once', async () => {
    const u = await s.fundedUser(5n * BigInt(USDC));
    await s.chain.anvil.rpc('evm_setIntervalMining', [0]);
    await s.chain.anvil.rpc('evm_setAutomine', [false]);
    const w = await s.withdraw(u, 2 * USDC);
    await until(s, 'the first attempt signed', async () => (await signed(w.id)) === 1);
    let atCap: number | null = null;
    for (let round = 0; round < 20; round++) {
      await highBlock(20_000_000_000n);
      await new Promise((r) => setTimeout(r, REPLACE_AFTER_MS + 300));
      if (atCap === null && (await op(w.id)).pending_reason === 'fee_cap') atCap = await signed(w.id);
    }
    const rows = (
      await s.sql.query(
        `select max_fee_per_gas::text as fee, max_priority_fee_per_gas::text as tip from chain_transactions where operation_id = $1`,
        [w.id],
      )
    ).rows as Array<{ fee: string; tip: string }>;
    expect(atCap).not.toBeNull();
    expect(rows.length).toBeGreaterThan(1); // replaced while there was room under the cap
    expect(rows.length).toBe(atCap); // and nothing signed after it reached the cap
    for (const r of rows) {
      expect(BigInt(r.fee)).toBeLessThanOrEqual(MAX_FEE);
      expect(BigInt(r.tip)).toBeLessThanOrEqual(MAX_TIP);
    }
    expect(await op(w.id)).toEqual({ status: 'pending', pending_reason: 'fee_cap' });
    // The network's price falls under the cap: the capped attempt is mined, and paid once.
    await highBlock(1_000_000_000n);
    await s.chain.anvil.rpc('evm_setIntervalMining', [1]);
    expect(await s.paidOnceProblems(u, w.id, w.to, 2 * USDC)).toEqual([]);
  }, 180_000);
});
