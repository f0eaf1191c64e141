// Onchain reconciliation (docs/settlement.md, "Reconciliation"): the USDC the service holds on chain against what
// users can withdraw.
//   held        = USDC of the settlement wallet (the hot float) + USDC of every registered deposit address (all
//                 of them: a transfer the listener missed sits in an address nothing credited) + USDC of the cold
//                 wallet (COLD_WALLET_ADDRESS with HOT_WALLET_MAX_MICROS: the excess moved there)
//   uncredited  = per deposit address, what it holds beyond what its credits minus its finished sweeps say:
//                 funds on chain that no user was credited for (a missed deposit: reported, never counted as
//                 backing)
//   owed        = what users can withdraw: available + reserved + contest pots. Not -balance(settlement_clearing)
//                 (printed beside it as liabilities): the clearing account nets in the treasury, so a prize pool
//                 paid from the treasury would be withdrawable and unbacked without showing as a deficit
//   in flight   = pending withdrawals that already signed a transaction: the chain may have paid them before
//                 the ledger posts them, so they may be missing from `held` for a moment
// surplus = held - uncredited - owed; a deficit (held - uncredited + in flight < owed) means money is missing.
// Balances are read by Multicall3 where it is deployed, else RECONCILE_CHUNK at a time in JSON-RPC batches
// (balances.ts), never all at once.
import { getAddress, type Address } from 'viem';
import type { LedgerCheckRepository } from '../../../db/repositories/ledger-check.repository.js';
import { balancesOf } from './balances.js';
import type { Chain } from '../../../adapters/chain/chain.js';

export interface Reconciliation {
  chain_id: number;
  token: Address;
  settlement_address: Address;
  settlement_wallet_micros: string;
  deposit_addresses_micros: string;
  /** COLD_WALLET_ADDRESS's USDC; "0" without a cold sweep configured. */
  cold_wallet_micros: string;
  /** Deposit addresses read. */
  deposit_addresses: number;
  held_micros: string;
  /** Held in deposit addresses beyond their credits: deposits no user was credited for. */
  uncredited_micros: string;
  /** Deposit addresses holding uncredited funds (at most 20 listed). */
  uncredited_addresses: Array<{ address: Address; micros: string }>;
  /** -balance(settlement_clearing): every deposit not withdrawn, the treasury's net included. */
  liabilities_micros: string;
  users_available_micros: string;
  users_reserved_micros: string;
  pots_micros: string;
  /** available + reserved + pots: what users can withdraw. */
  owed_micros: string;
  in_flight_withdrawals_micros: string;
  /** held - uncredited - owed (negative: short). */
  surplus_micros: string;
  deficit: boolean;
  gas_wei: string;
}

export async function reconcile(chain: Chain, repo: LedgerCheckRepository, cold?: { address: Address }): Promise<Reconciliation> {
  // The books first, then the chain: a withdrawal settling in between shows as in flight or as paid, never twice.
  const books = await repo.books();
  const addresses = await repo.depositAddressBooks();
  // The settlement wallet, the cold wallet and every deposit address in one read (balances.ts).
  const owners = [chain.settlementAddress, ...(cold ? [cold.address] : []), ...addresses.map((a) => getAddress(a.address))];
  const [balances, gas] = await Promise.all([balancesOf(chain, owners), chain.client.getBalance({ address: chain.settlementAddress })]);
  const wallet = balances[0]!;
  const coldWallet = cold ? balances[1]! : 0n;
  const deposits = balances.slice(cold ? 2 : 1);
  let inDeposits = 0n;
  let uncredited = 0n;
  const listed: Reconciliation['uncredited_addresses'] = [];
  for (const [i, balance] of deposits.entries()) {
    inDeposits += balance;
    const expected = addresses[i]!.expected > 0n ? addresses[i]!.expected : 0n;
    if (balance > expected) {
      uncredited += balance - expected;
      if (listed.length < 20) listed.push({ address: getAddress(addresses[i]!.address), micros: (balance - expected).toString() });
    }
  }
  const held = wallet + inDeposits + coldWallet;
  const owed = books.available + books.reserved + books.pots;
  const backing = held - uncredited;
  return {
    chain_id: chain.settings.chainId,
    token: chain.token,
    settlement_address: chain.settlementAddress,
    settlement_wallet_micros: wallet.toString(),
    deposit_addresses_micros: inDeposits.toString(),
    cold_wallet_micros: coldWallet.toString(),
    deposit_addresses: addresses.length,
    held_micros: held.toString(),
    uncredited_micros: uncredited.toString(),
    uncredited_addresses: listed,
    liabilities_micros: books.liabilities.toString(),
    users_available_micros: books.available.toString(),
    users_reserved_micros: books.reserved.toString(),
    pots_micros: books.pots.toString(),
    owed_micros: owed.toString(),
    in_flight_withdrawals_micros: books.inFlight.toString(),
    surplus_micros: (backing - owed).toString(),
    deficit: backing + books.inFlight < owed,
    gas_wei: gas.toString(),
  };
}
