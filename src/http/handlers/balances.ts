// Balances, deposits, withdrawals and their operations; the operator's app-token credit.
import { isAddress } from 'viem';
import type { OperationPending } from '../../../generated/openapi/types.gen.js';
import { Unprocessable, ValidationFailed } from '../../domain/errors.js';
import { microsFromRequest, microsToWire } from '../../domain/ledger/amounts.js';
import { userBalances } from '../../domain/ledger/ledger.js';
import { creditAppTokens } from '../../domain/money/app-tokens.js';
import { createDeposit, createWithdrawal, getOwnOperation, waitForFinal, type OperationRecord } from '../../domain/money/operations.js';
import type { SettlementAdapter } from '../../domain/settlement/adapter.js';
import type { SettlementProducer } from '../../jobs/settlement-producer.js';
import type { HandlersFor, RequestContext } from '../handler.js';
import { idempotent } from '../idempotent.js';
import { requireUser } from './principal.js';

export interface BalancesDeps {
  producer: SettlementProducer;
  settlement: SettlementAdapter;
  /** DEPOSIT_SYNC_WAIT_MS: how long a deposit or withdrawal waits for settlement before answering 202. */
  syncWaitMs: number;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

type BalancesOperationId =
  | 'getAvailableBalance'
  | 'getReservedBalance'
  | 'getAvailableAppTokenBalance'
  | 'createDeposit'
  | 'createWithdrawal'
  | 'getOperation'
  | 'getDepositWallet'
  | 'creditAppTokens';

type Settled<B> = { status: 200; body: B; headers: typeof NO_STORE } | { status: 202; body: OperationPending; headers: typeof NO_STORE };

export function balancesHandlers(deps: BalancesDeps): HandlersFor<BalancesOperationId> {
  const { producer, syncWaitMs } = deps;
  const userScope = (_req: unknown, ctx: RequestContext) => `user:${requireUser(ctx.auth).userId}`;

  /** Enqueue (a failure is left to the outbox relay), wait, and answer 200 / 202 / 422 SETTLEMENT_FAILED. */
  async function settleAndAnswer<B>(ctx: RequestContext, op: OperationRecord, ok: (op: OperationRecord) => B): Promise<Settled<B>> {
    try {
      await producer.enqueue(op.id);
    } catch (err) {
      ctx.log.warn({ err, operation_id: op.id }, 'could not enqueue settlement; the outbox relay will');
    }
    const final = syncWaitMs > 0 ? await waitForFinal(ctx.db, op.id, syncWaitMs) : op;
    if (final.status === 'success') return { status: 200, body: ok(final), headers: NO_STORE };
    if (final.status === 'failed') {
      const message =
        final.kind === 'deposit'
          ? 'the deposit could not be settled; nothing was credited'
          : 'the withdrawal could not be settled; the amount was returned to the available balance';
      throw new Unprocessable(final.failureCode ?? 'SETTLEMENT_FAILED', message, { operation_id: final.id });
    }
    return { status: 202, body: { operation_id: op.id, status: 'pending' }, headers: NO_STORE };
  }

  // A settled operation carries its destination (withdrawals) and its transaction hash.
  const withdraw = idempotent<'createWithdrawal'>(userScope, async ({ body }, ctx) => {
    const { userId } = requireUser(ctx.auth);
    const op = await createWithdrawal(ctx.db, userId, microsFromRequest(body.amount_micros), body.destination_address);
    return settleAndAnswer(ctx, op, (f) => ({
      amount_micros: microsToWire(f.amount),
      operation_id: f.id,
      destination_address: f.destinationAddress!,
      tx_hash: f.txHash!,
    }));
  });

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
    createDeposit: idempotent(userScope, async ({ body }, ctx) => {
      const { userId } = requireUser(ctx.auth);
      const op = await createDeposit(ctx.db, userId, microsFromRequest(body.amount_micros));
      return settleAndAnswer(ctx, op, (f) => ({ amount_micros: microsToWire(f.amount), operation_id: f.id, tx_hash: f.txHash! }));
    }),
    createWithdrawal: async (req, ctx) => {
      // EIP-55 is checked before the idempotency claim: like any validation failure, it is not stored.
      if (!isAddress(req.body.destination_address, { strict: true })) {
        throw new ValidationFailed('destination_address is not a valid EVM address: a mixed-case address must carry a valid EIP-55 checksum', [
          { in: 'body', path: '/destination_address', message: 'fails the EIP-55 checksum (use all lowercase, or the checksummed form)' },
        ]);
      }
      return withdraw(req, ctx);
    },
    getOperation: async ({ params }, { db, auth }) => {
      const { userId } = requireUser(auth);
      const op = await getOwnOperation(db, userId, params.operation_id);
      return {
        status: 200,
        body: {
          operation_id: op.id,
          kind: op.kind,
          status: op.status,
          amount_micros: microsToWire(op.amount),
          tx_hash: op.txHash,
          created_at_ms: op.createdAt.getTime(),
          failure_code: op.failureCode,
        },
        headers: NO_STORE,
      };
    },
    getDepositWallet: async (_req, { auth }) => {
      const w = deps.settlement.depositWallet(requireUser(auth).userId);
      return { status: 200, body: { address: w.address, chain_id: w.chainId, asset: w.asset, mode: w.mode } };
    },
    creditAppTokens: idempotent(
      ({ params }) => `operator:user:${params.user_id}`,
      async ({ params, body }, { db }) => {
        const userId = params.user_id;
        const amount = microsFromRequest(body.amount_micros);
        const balance = await creditAppTokens(db, userId, amount, `app-token-credit:${body.idempotency_key}`);
        return {
          status: 200,
          body: { user_id: userId, amount_micros: microsToWire(amount), available_app_token_micros: microsToWire(balance) },
          headers: NO_STORE,
        };
      },
    ),
  };
}
