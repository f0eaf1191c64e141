// Balances, deposits, withdrawals and the operator's app-token credit (an operation read by id, and the lists: history.ts). Each deposit and
// withdrawal is a step of the money lifecycle (src/trading/money-lifecycle.ts): this module validates what the
// schema cannot (EIP-55), runs the write under its idempotency key, and maps the operation's state after the
// lifecycle's wait to 200 / 202 / 422.
import { isAddress } from 'viem';
import type { OperationPending, WithdrawalPending } from '../../../generated/openapi/types.gen.js';
import { Unprocessable, ValidationFailed } from '../../domain/errors.js';
import { microsFromRequest, microsToWire } from '../../domain/ledger/amounts.js';
import { userBalances } from '../../domain/ledger/ledger.js';
import { creditAppTokensOnce, type AppTokenCredit } from '../../domain/money/app-tokens.js';
import type { OperationRecord } from '../../domain/money/operations.js';
import { WITHDRAWAL_REJECTED } from '../../domain/money/withdrawal-review.js';
import type { SettlementAdapter } from '../../domain/settlement/adapter.js';
import type { MoneyLifecycle } from '../../trading/money-lifecycle.js';
import { NO_STORE, type Handler, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { requireUser } from './principal.js';

export interface BalancesDeps {
  money: MoneyLifecycle;
  settlement: SettlementAdapter;
}

type BalancesOperationId =
  | 'getAvailableBalance'
  | 'getReservedBalance'
  | 'getAvailableAppTokenBalance'
  | 'createDeposit'
  | 'createWithdrawal'
  | 'getDepositWallet'
  | 'creditAppTokens';

const depositPending = (op: OperationRecord) => ({
  status: 202 as const,
  body: { operation_id: op.id, status: 'pending' } satisfies OperationPending,
  headers: NO_STORE,
});
const withdrawalPending = (op: OperationRecord) => ({
  status: 202 as const,
  body: {
    operation_id: op.id,
    status: 'pending',
    fee_micros: microsToWire(op.fee),
    pending_reason: op.pendingReason,
  } satisfies WithdrawalPending,
  headers: NO_STORE,
});

/** A final failure, first answer or replay: 422 with the operation's failure code and where the money is. */
function failed(op: OperationRecord): Unprocessable {
  const message =
    op.kind === 'deposit'
      ? 'the deposit could not be settled; nothing was credited'
      : op.failureCode === WITHDRAWAL_REJECTED
        ? 'an operator rejected the withdrawal; the amount and fee were returned to the available balance'
        : 'the withdrawal could not be settled; the amount and fee were returned to the available balance';
  return new Unprocessable(op.failureCode ?? 'SETTLEMENT_FAILED', message, { operation_id: op.id });
}

export function balancesHandlers({ money, settlement }: BalancesDeps): HandlersFor<BalancesOperationId> {
  return {
    ...balanceReads,
    createDeposit: createDeposit(money),
    createWithdrawal: createWithdrawal(money),
    getDepositWallet: getDepositWallet(settlement),
    creditAppTokens,
  };
}

const userScope = (ctx: RequestContext) => `user:${requireUser(ctx.auth).userId}`;

/** The operation as it is after the lifecycle's wait for its settlement (first request or replay). */
const settled = (money: MoneyLifecycle, ctx: RequestContext, id: string, written?: OperationRecord) =>
  money.outcome(ctx.db, requireUser(ctx.auth).userId, id, written);

const balanceReads: HandlersFor<'getAvailableBalance' | 'getReservedBalance' | 'getAvailableAppTokenBalance'> = {
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
};

const createDeposit =
  (money: MoneyLifecycle): Handler<'createDeposit'> =>
  async (req, ctx) => {
    const { body } = req;
    const user = requireUser(ctx.auth);
    // Outside any transaction (onchain): the wallet's balance and allowance; the write compares them with the
    // user's pending deposits under the user's lock, which is never held across a chain read.
    const funds = await money.depositFunds(user.address);
    const w = await writeOnce(
      req,
      ctx,
      { scope: userScope(ctx) },
      (tx) =>
        money.deposit(tx.db, {
          userId: user.userId,
          walletAddress: user.address,
          amount: microsFromRequest(body.amount_micros),
          key: body.idempotency_key,
          funds,
        }),
      (op) => ({ reply: depositPending(op), resourceId: op.id }),
    );
    return answerOnce(req, ctx, w, async (id, written) => {
      const op = await settled(money, ctx, id, written);
      if (op.status === 'failed') throw failed(op);
      if (op.status === 'pending') return depositPending(op);
      return { status: 200, body: { amount_micros: microsToWire(op.amount), operation_id: op.id, tx_hash: op.txHash! }, headers: NO_STORE };
    });
  };

const createWithdrawal =
  (money: MoneyLifecycle): Handler<'createWithdrawal'> =>
  async (req, ctx) => {
    // EIP-55 is checked before the idempotency claim: like any validation failure, it is not stored.
    if (!isAddress(req.body.destination_address, { strict: true })) {
      throw new ValidationFailed(
        'destination_address is not a valid EVM address: a mixed-case address must carry a valid EIP-55 checksum',
        [{ in: 'body', path: '/destination_address', message: 'fails the EIP-55 checksum (use all lowercase, or the checksummed form)' }],
      );
    }
    const { body } = req;
    const user = requireUser(ctx.auth);
    // Outside any transaction: the sanctions oracle's read (its refusal is decided, and stored, in the write).
    const screened = await money.screen(body.destination_address);
    const w = await writeOnce(
      req,
      ctx,
      { scope: userScope(ctx) },
      (tx) =>
        money.withdraw(tx.db, {
          userId: user.userId,
          amount: microsFromRequest(body.amount_micros),
          destination: body.destination_address,
          key: body.idempotency_key,
          screened,
        }),
      (op) => ({ reply: withdrawalPending(op), resourceId: op.id }),
    );
    return answerOnce(req, ctx, w, async (id, written) => {
      const op = await settled(money, ctx, id, written);
      if (op.status === 'failed') throw failed(op);
      if (op.status === 'pending') return withdrawalPending(op);
      const paid = { amount_micros: microsToWire(op.amount), fee_micros: microsToWire(op.fee), operation_id: op.id };
      return { status: 200, body: { ...paid, destination_address: op.destinationAddress!, tx_hash: op.txHash! }, headers: NO_STORE };
    });
  };

const getDepositWallet =
  (settlement: SettlementAdapter): Handler<'getDepositWallet'> =>
  async (_req, { db, auth }) => {
    const w = await settlement.depositWallet(db, requireUser(auth).userId);
    const onchain = w.assetAddress === undefined ? {} : { asset_address: w.assetAddress, spender_address: w.spenderAddress };
    return { status: 200, body: { address: w.address, chain_id: w.chainId, asset: w.asset, mode: w.mode, ...onchain } };
  };

const creditAppTokens: Handler<'creditAppTokens'> = async (req, ctx) => {
  const { params, body } = req;
  const amount = microsFromRequest(body.amount_micros);
  const w = await writeOnce(
    req,
    ctx,
    { scope: `operator:user:${params.user_id}` },
    // The credit, its idempotency key and its audit row commit together.
    async ({ db, audit }) => {
      const credit = await creditAppTokensOnce(db, params.user_id, amount, body.idempotency_key);
      await audit.record(db);
      return credit;
    },
    (credit: AppTokenCredit) => ({
      reply: {
        status: 200 as const,
        body: { user_id: params.user_id, amount_micros: microsToWire(amount), available_app_token_micros: microsToWire(credit.balance) },
        headers: NO_STORE,
      },
      resourceId: credit.transactionId,
    }),
  );
  return answerOnce(req, ctx, w);
};
