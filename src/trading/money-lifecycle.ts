// The money lifecycle's orchestration (docs/settlement.md, "Following a withdrawal through the code"): one
// function per step of a deposit or withdrawal, each the shape of the RFQ's (src/trading/rfq-lifecycle.ts):
// the rule in src/domain/money reads, decides (a pure decision: src/domain/money/withdrawal-policy.ts) and
// writes in one transaction; this module does what follows the commit: it hands the operation to settlement
// (the queue; the outbox relay is the backstop) and publishes its events (src/domain/money/events.ts). It is the
// only publisher of money events: the HTTP handlers and the settlement worker call these functions and never
// touch the bus for an operation.
//
// Steps that run inside a transaction their caller owns (typed Tx: src/db/unit-of-work.ts; an idempotency key's,
// src/http/idempotent.ts):
// `deposit`, `withdraw`, `approve`, `reject`, `resolve`; the matching after-commit step (`outcome`, `approved`,
// `rejected`, `resolved`) runs once it has committed.
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus.js';
import { publishUserEvents } from '../bus/user-events.js';
import type { Em } from '../db/orm.js';
import type { Tx } from '../db/unit-of-work.js';
import { AppError } from '../domain/errors.js';
import { operationSettled, type MoneyEvent } from '../domain/money/events.js';
import { getOwnOperation, settleOperations, type OperationRecord, type SettleOutcome } from '../domain/money/operations.js';
import {
  requestDeposit,
  requestWithdrawal,
  screenDestination,
  type Custody,
  type Screened,
  type WithdrawalRequest,
} from '../domain/money/requests.js';
import { refuseWhenChainAnswers, resolveInReview, type Resolution, type ReviewOperation } from '../domain/money/review.js';
import { approveWithdrawal, rejectWithdrawal, type ReviewDecisionInput } from '../domain/money/withdrawal-review.js';
import type { DepositFunds, SettlementAdapter } from '../domain/settlement/adapter.js';
import type { SettlementProducer } from '../jobs/settlement-producer.js';
import type { OperationWaiter } from './operation-waiter.js';

type Log = Pick<Logger, 'warn'>;

/**
 * At most once: a failed publish is logged and dropped (waiters fall back to reading the row). Every step that
 * committed a change also publishes `user.events` (the user channel reads its durable log: src/ws/user-stream.ts).
 */
export async function publishMoneyEvents(bus: Bus, events: readonly MoneyEvent[], log: Log): Promise<void> {
  await Promise.all([
    publishUserEvents(bus),
    ...events.map((e) =>
      bus.publish(e.topic, e).catch((err: unknown) => {
        log.warn({ err, topic: e.topic, operation_id: e.operation_id }, 'could not publish a money event; waiters read the database');
      }),
    ),
  ]);
}

export interface MoneySettlerDeps {
  forkDb: () => Em;
  bus: Bus;
  settlement: SettlementAdapter;
  log: Log;
}

/**
 * The settlement worker's step: settles a batch in one transaction (settleOperations), then publishes
 * `operation.settled` for each operation it made final. Held withdrawals come back `held`, untouched.
 */
export function createMoneySettler(deps: MoneySettlerDeps): { settle(ids: readonly string[]): Promise<Map<string, SettleOutcome>> } {
  return {
    async settle(ids) {
      const outcomes = await settleOperations(deps.forkDb(), deps.settlement, ids);
      const final = [...outcomes].filter(([, o]) => o === 'settled' || o === 'failed').map(([id]) => operationSettled(id));
      await publishMoneyEvents(deps.bus, final, deps.log);
      return outcomes;
    },
  };
}

export interface MoneyLifecycleDeps extends MoneySettlerDeps {
  custody: Custody;
  producer: Pick<SettlementProducer, 'enqueue' | 'ensure'>;
  waiter: OperationWaiter;
  /** DEPOSIT_SYNC_WAIT_MS: how long a request waits for its operation's settlement before answering pending. */
  syncWaitMs: number;
}

export interface DepositInput {
  userId: string;
  walletAddress: string;
  amount: bigint;
  key: string;
  /** What depositFunds read before the transaction (onchain). */
  funds?: DepositFunds;
}

export interface MoneyLifecycle {
  /** Before a pull deposit's transaction (onchain): the wallet's balance and allowance, read outside any lock. */
  depositFunds(walletAddress: string): Promise<DepositFunds | undefined>;
  /** A pull deposit, in the caller's transaction (DEPOSIT_TOO_SMALL, the adapter's balance check); `outcome` follows. */
  deposit(tx: Tx, d: DepositInput): Promise<OperationRecord>;
  /** Before a withdrawal's transaction: the destination rules that need no database (the sanctions oracle's read). */
  screen(destination: string): Promise<Screened>;
  /** A withdrawal, in the caller's transaction: refused, held for review, or reserved and pending; `outcome` follows. */
  withdraw(tx: Tx, r: WithdrawalRequest): Promise<OperationRecord>;
  /**
   * After the write committed (first request: `written`; a replay reads it): hands a pending operation to
   * settlement and waits up to DEPOSIT_SYNC_WAIT_MS for it to become final. A held withdrawal is answered at once.
   */
  outcome(em: Em, userId: string, operationId: string, written?: OperationRecord): Promise<OperationRecord>;
  /** An operator approves a held withdrawal, in the caller's transaction; `approved` hands it to settlement after commit. */
  approve(tx: Tx, d: ReviewDecisionInput): Promise<ReviewOperation>;
  approved(op: ReviewOperation, log?: Log): Promise<void>;
  /** An operator rejects a held withdrawal (refunded, failed), in the caller's transaction; `rejected` publishes after commit. */
  reject(tx: Tx, d: ReviewDecisionInput & { reason: string }): Promise<ReviewOperation>;
  rejected(op: ReviewOperation, log?: Log): Promise<void>;
  /** Before resolving an operation in review: 409 CHAIN_HAS_RECEIPT when the node now serves a receipt. */
  checkChain(em: Em, operationId: string): Promise<void>;
  /** An operator resolves an operation the chain could not prove, in the caller's transaction; `resolved` publishes. */
  resolve(tx: Tx, r: Resolution): Promise<ReviewOperation>;
  resolved(op: ReviewOperation, log?: Log): Promise<void>;
  /** The settlement worker's step (createMoneySettler). */
  settle(ids: readonly string[]): Promise<Map<string, SettleOutcome>>;
}

export function createMoneyLifecycle(deps: MoneyLifecycleDeps): MoneyLifecycle {
  const settler = createMoneySettler(deps);
  const publishFinal = (op: ReviewOperation, log: Log = deps.log) =>
    publishMoneyEvents(deps.bus, op.status === 'pending' ? [] : [operationSettled(op.id)], log);
  return {
    depositFunds: (walletAddress) => deps.settlement.readDepositFunds?.(walletAddress) ?? Promise.resolve(undefined),
    deposit: (tx, d) => requestDeposit(tx, deps.custody, deps.settlement, d),
    screen: (destination) => screenDestination(deps.custody, destination),
    withdraw: (tx, r) => requestWithdrawal(tx, deps.custody, r).catch((err: unknown) => Promise.reject(flagged(deps.log, r, err))),
    outcome: (em, userId, operationId, written) => waitForOutcome(deps, em, userId, operationId, written),
    approve: (tx, d) => approveWithdrawal(tx, d),
    async approved(op, log = deps.log) {
      // The approval wrote its outbox row: an enqueue lost here is the relay's within seconds.
      await deps.producer
        .ensure(op.id)
        .catch((err: unknown) => log.warn({ err, operation_id: op.id }, 'could not enqueue an approved withdrawal; the outbox relay will'));
    },
    reject: (tx, d) => rejectWithdrawal(tx, d),
    rejected: (op, log) => publishFinal(op, log),
    checkChain: (em, operationId) => refuseWhenChainAnswers(em, deps.settlement, operationId),
    resolve: (tx, r) => resolveInReview(tx, deps.settlement, r),
    resolved: (op, log) => publishFinal(op, log),
    settle: (ids) => settler.settle(ids),
  };
}

/** A destination the operator or the sanctions oracle refused: logged (who tried, and where to), then the refusal as it was. */
function flagged(log: Log, r: WithdrawalRequest, err: unknown): unknown {
  const rule =
    err instanceof AppError && err.code === 'DESTINATION_NOT_ALLOWED' ? (err.details as { rule?: string } | null)?.rule : undefined;
  if (rule === 'denylist' || rule === 'sanctioned') {
    log.warn(
      { user_id: r.userId, destination_address: r.destination, rule, amount_micros: r.amount.toString() },
      'withdrawal to a refused destination',
    );
  }
  return err;
}

async function waitForOutcome(
  deps: MoneyLifecycleDeps,
  em: Em,
  userId: string,
  id: string,
  written?: OperationRecord,
): Promise<OperationRecord> {
  const read = () => getOwnOperation(em, userId, id);
  const enqueue = async (op: OperationRecord) => {
    try {
      await deps.producer.enqueue(op.id);
    } catch (err) {
      deps.log.warn({ err, operation_id: op.id }, 'could not enqueue settlement; the outbox relay will');
    }
  };
  const settles = (o: OperationRecord) => o.status === 'pending' && o.pendingReason !== 'review';
  const isFinal = (o: OperationRecord) => !settles(o);
  const deadline = Date.now() + deps.syncWaitMs;
  if (written && settles(written) && deps.syncWaitMs > 0) {
    // Registered for the settlement's message before its job exists: no read needed before waiting.
    return deps.waiter.waitFor(id, deadline, read, isFinal, { value: written, start: () => enqueue(written) });
  }
  if (written) await publishUserEvents(deps.bus); // the request's own commit (its operation and balance events)
  const op = written ?? (await read());
  if (!settles(op)) return op; // final, or held for review (nothing to enqueue or wait for)
  await enqueue(op);
  return deps.syncWaitMs > 0 ? deps.waiter.waitFor(id, deadline, read, isFinal) : op;
}
