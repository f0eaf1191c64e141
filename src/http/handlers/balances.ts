// Balances, deposits, withdrawals and the operator's app-token credit (an operation read by id, and the lists: history.ts).
import { isAddress } from 'viem';
import type { OperationPending } from '../../../generated/openapi/types.gen.js';
import { Unprocessable, ValidationFailed } from '../../domain/errors.js';
import { microsFromRequest, microsToWire } from '../../domain/ledger/amounts.js';
import { userBalances } from '../../domain/ledger/ledger.js';
import { creditAppTokensOnce, type AppTokenCredit } from '../../domain/money/app-tokens.js';
import { getOwnOperation, openDeposit, openWithdrawal, type OperationRecord } from '../../domain/money/operations.js';
import type { SettlementAdapter } from '../../domain/settlement/adapter.js';
import type { OperationWaiter } from '../../trading/operation-waiter.js';
import type { SettlementProducer } from '../../jobs/settlement-producer.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { requireUser } from './principal.js';

export interface BalancesDeps {
  producer: SettlementProducer;
  settlement: SettlementAdapter;
  /** DEPOSIT_SYNC_WAIT_MS: how long a deposit or withdrawal waits for settlement before answering 202. */
  syncWaitMs: number;
  /** Wakes the waiting request when the worker's `operation.settled` arrives (no polling loop). */
  waiter: OperationWaiter;
}

type BalancesOperationId =
  | 'getAvailableBalance'
  | 'getReservedBalance'
  | 'getAvailableAppTokenBalance'
  | 'createDeposit'
  | 'createWithdrawal'
  | 'getDepositWallet'
  | 'creditAppTokens';

type Settled<B> = { status: 200; body: B; headers: typeof NO_STORE } | { status: 202; body: OperationPending; headers: typeof NO_STORE };

export function balancesHandlers(deps: BalancesDeps): HandlersFor<BalancesOperationId> {
  const { producer, syncWaitMs } = deps;
  const userScope = (ctx: RequestContext) => `user:${requireUser(ctx.auth).userId}`;

  /**
   * Enqueue (a failure is left to the outbox relay), wait, and answer 200 / 202 / 422 SETTLEMENT_FAILED.
   * `written`: the operation as this request just wrote it (a replay has none and reads it).
   */
  async function settleAndAnswer<B>(ctx: RequestContext, id: string, ok: (op: OperationRecord) => B, written?: OperationRecord): Promise<Settled<B>> {
    const userId = requireUser(ctx.auth).userId;
    const read = () => getOwnOperation(ctx.db, userId, id);
    const enqueue = async (op: OperationRecord) => {
      try {
        await producer.enqueue(op.id);
      } catch (err) {
        ctx.log.warn({ err, operation_id: op.id }, 'could not enqueue settlement; the outbox relay will');
      }
    };
    const isFinal = (o: OperationRecord) => o.status !== 'pending';
    const deadline = Date.now() + syncWaitMs;
    let final: OperationRecord;
    if (written && written.status === 'pending' && syncWaitMs > 0) {
      // Registered for the settlement's message before its job exists: no read needed before waiting.
      final = await deps.waiter.waitFor(id, deadline, read, isFinal, { value: written, start: () => enqueue(written) });
    } else {
      const op = written ?? (await read());
      if (op.status === 'pending') await enqueue(op);
      final = syncWaitMs > 0 && op.status === 'pending' ? await deps.waiter.waitFor(id, deadline, read, isFinal) : op;
    }
    if (final.status === 'success') return { status: 200, body: ok(final), headers: NO_STORE };
    if (final.status === 'failed') {
      const message =
        final.kind === 'deposit'
          ? 'the deposit could not be settled; nothing was credited'
          : 'the withdrawal could not be settled; the amount was returned to the available balance';
      throw new Unprocessable(final.failureCode ?? 'SETTLEMENT_FAILED', message, { operation_id: final.id });
    }
    return { status: 202, body: { operation_id: final.id, status: 'pending' }, headers: NO_STORE };
  }

  // The key, the operation (and a withdrawal's reserve) commit together; the answer, first or replayed, is the
  // operation's current state after waiting for settlement. A settled operation carries its destination
  // (withdrawals) and its transaction hash.
  const pending = (op: OperationRecord) => ({ status: 202 as const, body: { operation_id: op.id, status: 'pending' as const }, headers: NO_STORE });
  const stored = (op: OperationRecord) => ({ reply: pending(op), resourceId: op.id });

  return {
    getAvailableBalance: async (_req, { db, auth }) => {
      const b = await userBalances(db, requireUser(auth).userId);
      return { status: 200, body: { available_micros: microsToWire(b.available) }, headers: NO_STORE };
    },
    getReservedBalance: async (_req, { db, auth }) => {
      const b = await userBalances(db, requireUser(auth).userId);
      return { status: 200, body: { reserved_micros: microsToWire(b.reserved) }, headers: NO_STORE };
    },
    getAvailableAppTokenBalance: async (_req, { db, auth }) => {
      const b = await userBalances(db, requireUser(auth).userId);
      return { status: 200, body: { available_app_token_micros: microsToWire(b.appToken) }, headers: NO_STORE };
    },
    createDeposit: async (req, ctx) => {
      const { body } = req;
      const w = await writeOnce(
        req,
        ctx,
        { scope: userScope(ctx) },
        async ({ db, auth }) => {
          const user = requireUser(auth);
          const amount = microsFromRequest(body.amount_micros);
          // Onchain: the wallet's balance and allowance cover it (422 BALANCE_TOO_LOW / ALLOWANCE_TOO_LOW, nothing opened).
          await deps.settlement.checkDeposit?.(db, user.userId, user.address, amount);
          return openDeposit(db, user.userId, amount, body.idempotency_key);
        },
        stored,
      );
      return answerOnce(req, ctx, w, (id, written) =>
        settleAndAnswer(ctx, id, (f) => ({ amount_micros: microsToWire(f.amount), operation_id: f.id, tx_hash: f.txHash! }), written),
      );
    },
    createWithdrawal: async (req, ctx) => {
      // EIP-55 is checked before the idempotency claim: like any validation failure, it is not stored.
      if (!isAddress(req.body.destination_address, { strict: true })) {
        throw new ValidationFailed('destination_address is not a valid EVM address: a mixed-case address must carry a valid EIP-55 checksum', [
          { in: 'body', path: '/destination_address', message: 'fails the EIP-55 checksum (use all lowercase, or the checksummed form)' },
        ]);
      }
      const { body } = req;
      const w = await writeOnce(
        req,
        ctx,
        { scope: userScope(ctx) },
        ({ db, auth }) =>
          openWithdrawal(db, requireUser(auth).userId, microsFromRequest(body.amount_micros), body.destination_address, body.idempotency_key),
        stored,
      );
      return answerOnce(req, ctx, w, (id, written) =>
        settleAndAnswer(
          ctx,
          id,
          (f) => ({
            amount_micros: microsToWire(f.amount),
            operation_id: f.id,
            destination_address: f.destinationAddress!,
            tx_hash: f.txHash!,
          }),
          written,
        ),
      );
    },
    getDepositWallet: async (_req, { db, auth }) => {
      const w = await deps.settlement.depositWallet(db, requireUser(auth).userId);
      const onchain = w.assetAddress === undefined ? {} : { asset_address: w.assetAddress, spender_address: w.spenderAddress };
      return { status: 200, body: { address: w.address, chain_id: w.chainId, asset: w.asset, mode: w.mode, ...onchain } };
    },
    creditAppTokens: async (req, ctx) => {
      const { params, body } = req;
      const w = await writeOnce(
        req,
        ctx,
        { scope: `operator:user:${params.user_id}` },
        // The credit, its idempotency key and its audit row commit together.
        async ({ db, audit }) => {
          const credit = await creditAppTokensOnce(db, params.user_id, microsFromRequest(body.amount_micros), body.idempotency_key);
          await audit.record(db);
          return credit;
        },
        (credit: AppTokenCredit) => ({
          reply: {
            status: 200 as const,
            body: {
              user_id: params.user_id,
              amount_micros: microsToWire(microsFromRequest(body.amount_micros)),
              available_app_token_micros: microsToWire(credit.balance),
            },
            headers: NO_STORE,
          },
          resourceId: credit.transactionId,
        }),
      );
      return answerOnce(req, ctx, w);
    },
  };
}
