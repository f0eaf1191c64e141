// The built-in demo market maker of the embedded development default (issue 16 item 5): with nothing else
// running, an RFQ from examples/taker-client.ts gets a quote and fills. Its wallet is the public anvil
// key #9 (never use it for funds), registered as a market maker and funded with demo collateral through
// the demo settlement, once (marker service_keys('demo_maker_v1'), in the same transaction). Pricing is
// pure: fair odds for n legs at 50% each are 2^n (x10000 bps), less a spread.
import { randomBytes } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { findOrCreateWalletUser, setHandle } from '../identity/users.js';
import { registerMarketMaker } from '../market-makers/market-makers.js';
import { openDeposit, settleOperation } from '../money/operations.js';
import type { SettlementAdapter } from '../settlement/adapter.js';
import { repos } from '../../db/repos.js';

export const DEMO_MAKER_MARKER = 'demo_maker_v1';
/** anvil / Hardhat test key #9: public, demo only. */
export const DEMO_MAKER_KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
export const DEMO_MAKER_ADDRESS = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
export const DEMO_MAKER_COLLATERAL_MICROS = 1_000_000n * 1_000_000n;
export const DEMO_MAKER_SPREAD_BPS = 500;

/** Quoted odds for an RFQ of `legs` legs: 2^legs less `spreadBps` of it, within the valid 10001..10000000. */
export function demoMakerOddsBps(legs: number, spreadBps = DEMO_MAKER_SPREAD_BPS): number {
  const fair = 10_000 * 2 ** legs;
  return Math.min(10_000_000, Math.max(10_001, Math.floor((fair * (10_000 - spreadBps)) / 10_000)));
}

/** Registers and funds the demo maker once; returns whether this call did. */
export async function ensureDemoMaker(em: Em, settlement: SettlementAdapter): Promise<boolean> {
  return em.transactional(async (tx) => {
    if (!(await repos(tx).demo.claimMarker(DEMO_MAKER_MARKER, randomBytes(16)))) return false;
    const user = await findOrCreateWalletUser(tx, DEMO_MAKER_ADDRESS);
    await setHandle(tx, user.id, 'demo_maker');
    await registerMarketMaker(tx, DEMO_MAKER_ADDRESS, 'Demo market maker (built in)');
    const deposit = await openDeposit(tx, user.id, DEMO_MAKER_COLLATERAL_MICROS, null);
    const settled = await settleOperation(tx, settlement, deposit.id);
    if (settled !== 'settled') throw new Error(`demo maker: its collateral deposit was not settled (${settled})`);
    return true;
  });
}
