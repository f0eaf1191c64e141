// Onchain reconciliation (docs/settlement.md): the USDC the service holds on chain against what it owes.
//   held        = USDC of the settlement wallet (the hot float) + USDC of deposit addresses not yet swept into it
//                 + USDC of the cold wallet (COLD_WALLET_ADDRESS with HOT_WALLET_MAX_MICROS: the excess moved there)
//   liabilities = -balance(settlement_clearing): every micro that came in through a deposit and did not
//                 leave through a withdrawal, wherever it sits now (users' available and reserved, contest
//                 pots, open positions); users' available + reserved is printed beside it
//   in flight   = pending withdrawals that already signed a transaction: the chain may have paid them
//                 before the ledger posts them, so they may be missing from `held` for a moment
// surplus = held - liabilities; a deficit (held + in flight < liabilities) means money is missing.
import type { Address } from 'viem';
import type { LedgerCheckRepository } from '../../../db/repositories/ledger-check.repository.js';
import type { Chain } from './chain.js';

export interface Reconciliation {
  chain_id: number;
  token: Address;
  settlement_address: Address;
  settlement_wallet_micros: string;
  deposit_addresses_micros: string;
  /** COLD_WALLET_ADDRESS's USDC; "0" without a cold sweep configured. */
  cold_wallet_micros: string;
  held_micros: string;
  liabilities_micros: string;
  users_available_micros: string;
  users_reserved_micros: string;
  in_flight_withdrawals_micros: string;
  /** held - liabilities (negative: short). */
  surplus_micros: string;
  deficit: boolean;
  gas_wei: string;
}

/**
 * Where unswept custodial deposits sit (USDC not yet moved into the settlement wallet): the deposit addresses
 * that were credited (unsweptDepositAddresses, src/domain/settlement/onchain/sweeps.ts).
 */
export type UnsweptAddresses = (repo: LedgerCheckRepository) => Promise<Address[]>;
export const noUnsweptAddresses: UnsweptAddresses = () => Promise.resolve([]);

export async function reconcile(
  chain: Chain,
  repo: LedgerCheckRepository,
  unswept: UnsweptAddresses = noUnsweptAddresses,
  cold?: { address: Address },
): Promise<Reconciliation> {
  // The books first, then the chain: a withdrawal settling in between shows as in flight or as paid, never twice.
  const books = await repo.books();
  const addresses = await unswept(repo);
  const [wallet, gas, coldWallet, ...deposits] = await Promise.all([
    chain.tokenBalance(chain.settlementAddress),
    chain.client.getBalance({ address: chain.settlementAddress }),
    cold ? chain.tokenBalance(cold.address) : 0n,
    ...addresses.map((a) => chain.tokenBalance(a)),
  ]);
  const inDeposits = deposits.reduce((a, b) => a + b, 0n);
  const held = wallet + inDeposits + coldWallet;
  const { liabilities, inFlight } = books;
  return {
    chain_id: chain.settings.chainId,
    token: chain.token,
    settlement_address: chain.settlementAddress,
    settlement_wallet_micros: wallet.toString(),
    deposit_addresses_micros: inDeposits.toString(),
    cold_wallet_micros: coldWallet.toString(),
    held_micros: held.toString(),
    liabilities_micros: liabilities.toString(),
    users_available_micros: books.available.toString(),
    users_reserved_micros: books.reserved.toString(),
    in_flight_withdrawals_micros: inFlight.toString(),
    surplus_micros: (held - liabilities).toString(),
    deficit: held + inFlight < liabilities,
    gas_wei: gas.toString(),
  };
}
