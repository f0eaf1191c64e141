// Onchain reconciliation (docs/settlement.md): the USDC the service holds on chain against what it owes.
//   held        = USDC of the settlement wallet + USDC of deposit addresses not yet swept into it
//   liabilities = -balance(settlement_clearing): every micro that came in through a deposit and did not
//                 leave through a withdrawal, wherever it sits now (users' available and reserved, contest
//                 pots, open positions); users' available + reserved is printed beside it
//   in flight   = pending withdrawals that already signed a transaction: the chain may have paid them
//                 before the ledger posts them, so they may be missing from `held` for a moment
// surplus = held - liabilities; a deficit (held + in flight < liabilities) means money is missing.
import type { Address } from 'viem';
import type { Chain } from './chain.js';

export type Query = <T>(sql: string) => Promise<T>;

export interface Reconciliation {
  chain_id: number;
  token: Address;
  settlement_address: Address;
  settlement_wallet_micros: string;
  deposit_addresses_micros: string;
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
export type UnsweptAddresses = (query: Query) => Promise<Address[]>;
export const noUnsweptAddresses: UnsweptAddresses = () => Promise.resolve([]);

const BOOKS = `
  select (select -balance from ledger_accounts where kind = 'settlement_clearing')::text as liabilities,
         (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'user_available')::text as available,
         (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'user_reserved')::text as reserved,
         (select coalesce(sum(o.amount), 0) from operations o
           where o.kind = 'withdraw' and o.status = 'pending'
             and exists (select 1 from chain_transactions c where c.operation_id = o.id))::text as in_flight`;

export async function reconcile(chain: Chain, query: Query, unswept: UnsweptAddresses = noUnsweptAddresses): Promise<Reconciliation> {
  // The books first, then the chain: a withdrawal settling in between shows as in flight or as paid, never twice.
  const [books] = await query<Array<{ liabilities: string | null; available: string; reserved: string; in_flight: string }>>(BOOKS);
  const addresses = await unswept(query);
  const [wallet, gas, ...deposits] = await Promise.all([
    chain.tokenBalance(chain.settlementAddress),
    chain.client.getBalance({ address: chain.settlementAddress }),
    ...addresses.map((a) => chain.tokenBalance(a)),
  ]);
  const inDeposits = deposits.reduce((a, b) => a + b, 0n);
  const held = wallet + inDeposits;
  const liabilities = BigInt(books?.liabilities ?? '0');
  const inFlight = BigInt(books?.in_flight ?? '0');
  return {
    chain_id: chain.settings.chainId,
    token: chain.token,
    settlement_address: chain.settlementAddress,
    settlement_wallet_micros: wallet.toString(),
    deposit_addresses_micros: inDeposits.toString(),
    held_micros: held.toString(),
    liabilities_micros: liabilities.toString(),
    users_available_micros: books?.available ?? '0',
    users_reserved_micros: books?.reserved ?? '0',
    in_flight_withdrawals_micros: inFlight.toString(),
    surplus_micros: (held - liabilities).toString(),
    deficit: held + inFlight < liabilities,
    gas_wei: gas.toString(),
  };
}
