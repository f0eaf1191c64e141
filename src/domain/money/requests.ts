// The request side of deposits and withdrawals under the custody rules (docs/operations.md, "Custody"). A
// withdrawal is one step in the idempotency key's transaction: read (under the user's row lock: the user's
// rolling day, whether the destination is a custodial deposit address; then, only when it would otherwise be
// sent at once and WITHDRAWALS_HOURLY_LIMIT_MICROS is set, under the deployment's volume lock: the rolling hour
// sent without review) -> decide (decideWithdrawal, pure) -> write (the operation, its review, the reserve).
// What must be read outside any transaction (the sanctions oracle) is read first by screenDestination.
import { getAddress } from 'viem';
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import { Unavailable, Unprocessable } from '../errors.js';
import type { DepositFunds, SettlementAdapter } from '../settlement/adapter.js';
import { findByKey, openDeposit, openWithdrawal, type OperationRecord } from './operations.js';
import type { SanctionsOracle } from './sanctions.js';
import {
  DAY_MS,
  decideWithdrawal,
  depositRefusal,
  destinationRule,
  HOUR_MS,
  type DestinationRule,
  type WithdrawalFacts,
  type WithdrawalRefusal,
  type WithdrawalRules,
} from './withdrawal-policy.js';
import { repos } from '../../db/repos.js';

export interface Custody {
  rules: WithdrawalRules;
  depositMinMicros: bigint;
  /** This deployment's own addresses (any case; null when it has none): never a destination. */
  addresses: { token: string | null; settlement: string | null; cold: string | null };
  denylist: { has(address: string): boolean };
  sanctions: SanctionsOracle | undefined;
  /** Demo settlement: a user's made-up deposit address (no row in deposit_addresses). */
  derivedDepositAddress?: (userId: string) => string;
}

/** What screenDestination found before the transaction. */
export interface Screened {
  /** Lower case. */
  address: string;
  /** A rule decided without the database (every rule but deposit_address), or null. */
  rule: Exclude<DestinationRule, 'deposit_address'> | null;
  /** The oracle could not be read (and no other rule refuses): the withdrawal waits for it (503). */
  oracleUnknown: boolean;
}

const lower = (a: string | null) => a?.toLowerCase() ?? null;

/** Before the transaction: the static rules, the denylist in force, and the sanctions oracle when the others pass. */
export async function screenDestination(c: Custody, destination: string): Promise<Screened> {
  const address = destination.toLowerCase();
  const facts = {
    address,
    token: lower(c.addresses.token),
    settlement: lower(c.addresses.settlement),
    cold: lower(c.addresses.cold),
    isDepositAddress: false,
    denylisted: c.denylist.has(address),
    sanctioned: false,
  };
  const rule = destinationRule(facts);
  if (rule || !c.sanctions) return { address, rule: rule as Screened['rule'], oracleUnknown: false };
  const sanctioned = await c.sanctions.check(address);
  if (sanctioned === 'unknown') return { address, rule: null, oracleUnknown: true };
  return { address, rule: sanctioned ? 'sanctioned' : null, oracleUnknown: false };
}

const RULE_TEXT: Record<DestinationRule, string> = {
  zero_address: 'the zero address burns what it receives',
  token_contract: 'the USDC contract itself cannot use what it receives',
  settlement_wallet: "this is the service's own settlement wallet",
  cold_wallet: "this is the service's own cold wallet",
  deposit_address: 'withdrawals to a custodial deposit address of this service are refused; move funds within the app instead',
  denylist: 'the operator has refused this destination',
  sanctioned: 'the sanctions oracle lists this destination',
};

export function refusalError(r: WithdrawalRefusal, destination: string): Unprocessable {
  switch (r.code) {
    case 'DESTINATION_NOT_ALLOWED':
      return new Unprocessable(r.code, `withdrawals to this address are not allowed: ${RULE_TEXT[r.rule]}`, {
        rule: r.rule,
        destination_address: destination,
      });
    case 'WITHDRAWAL_TOO_SMALL':
      return new Unprocessable(r.code, 'the amount is below the smallest withdrawal', { min_micros: r.minMicros.toString() });
    case 'WITHDRAWAL_LIMIT_EXCEEDED':
      return new Unprocessable(r.code, 'this withdrawal would pass your withdrawal limit over the last 24 hours', {
        limit_micros: r.limitMicros.toString(),
        remaining_micros: r.remainingMicros.toString(),
      });
  }
}

export interface WithdrawalRequest {
  userId: string;
  amount: bigint;
  /** As the request gave it (stored as given, checksummed or lower case). */
  destination: string;
  key: string | null;
  screened: Screened;
}

/** In the caller's transaction (the idempotency key's): the withdrawal written, held, or refused (nothing reserved). */
export async function requestWithdrawal(tx: Tx, c: Custody, r: WithdrawalRequest): Promise<OperationRecord> {
  const repo = repos(tx).withdrawals;
  await repo.lockUser(r.userId);
  // Written before under this key (its idempotency row pruned): answered as it was, never decided again.
  if (await findByKey(tx, r.userId, 'withdraw', r.key)) return openWithdrawal(tx, r.userId, r.amount, r.destination, r.key);
  const facts: WithdrawalFacts = {
    amount: r.amount,
    destination: await destinationOf(tx, c, r),
    userWithdrawnDay: 0n,
    automaticWithdrawnHour: 0n,
  };
  if (c.rules.dailyLimitMicros !== null && facts.destination === null)
    facts.userWithdrawnDay = await repo.userWithdrawnSince(r.userId, DAY_MS);
  let decision = decideWithdrawal({ ...c.rules, hourlyLimitMicros: null }, facts);
  // The deployment's lock only for a withdrawal that would be sent at once: a held one adds nothing to the volume.
  if (decision.accept && !decision.review.length && c.rules.hourlyLimitMicros !== null) {
    await repo.lockDeploymentVolume();
    // Decided in SQL (WithdrawalsRepository.automaticWithdrawnSince): what counts towards the hourly limit, the
    // withdrawals of the last hour not failed and never held for review; decideWithdrawal compares it.
    facts.automaticWithdrawnHour = await repo.automaticWithdrawnSince(HOUR_MS);
    decision = decideWithdrawal(c.rules, facts);
  }
  if (!decision.accept) throw refusalError(decision.refusal, r.destination);
  return openWithdrawal(tx, r.userId, r.amount, r.destination, r.key, { fee: decision.fee, review: decision.review });
}

async function destinationOf(tx: Em, c: Custody, r: WithdrawalRequest): Promise<DestinationRule | null> {
  if (r.screened.rule) return r.screened.rule;
  const own = c.derivedDepositAddress?.(r.userId).toLowerCase();
  // deposit_addresses holds each address as it was handed out (EIP-55 today): look it up in both spellings.
  const spellings = [getAddress(r.screened.address), r.screened.address];
  if (own === r.screened.address || (await repos(tx).withdrawals.isDepositAddress(spellings))) return 'deposit_address';
  // Never inferred from silence: an oracle that did not answer is not a "not listed".
  if (r.screened.oracleUnknown) {
    throw new Unavailable(
      'the sanctions oracle could not be read; nothing was reserved or stored, retry shortly with the same idempotency_key',
    );
  }
  return null;
}

/** In the caller's transaction: DEPOSIT_MIN_MICROS, then the adapter's check (onchain: balance and allowance), then the deposit. */
export async function requestDeposit(
  tx: Tx,
  c: Pick<Custody, 'depositMinMicros'>,
  settlement: SettlementAdapter,
  d: { userId: string; walletAddress: string; amount: bigint; key: string | null; funds?: DepositFunds },
): Promise<OperationRecord> {
  const refused = depositRefusal(c.depositMinMicros, d.amount);
  if (refused)
    throw new Unprocessable(refused.code, 'the amount is below the smallest deposit', { min_micros: refused.minMicros.toString() });
  // Onchain: the wallet's balance and allowance cover it (422 BALANCE_TOO_LOW / ALLOWANCE_TOO_LOW, nothing opened).
  // (read before this transaction: readDepositFunds; no chain read under the user's lock).
  await settlement.checkDeposit?.(tx, d.userId, d.walletAddress, d.amount, d.funds);
  return openDeposit(tx, d.userId, d.amount, d.key);
}
