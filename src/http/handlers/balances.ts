// Balances, deposits, withdrawals and their operations; the operator's app-token credit.
import { isAddress } from 'viem';
import type { Orm } from '../../db/orm.js';
import type {
  AppTokenCreditRequest,
  DepositRequest,
  WithdrawRequest,
} from '../../../generated/openapi/types.gen.js';
import { Unprocessable, ValidationFailed } from '../../domain/errors.js';
import { microsFromRequest, microsToWire } from '../../domain/ledger/amounts.js';
import { userBalances } from '../../domain/ledger/ledger.js';
import { creditAppTokens } from '../../domain/money/app-tokens.js';
import { createDeposit, createWithdrawal, getOwnOperation, waitForFinal, type OperationRecord } from '../../domain/money/operations.js';
import type { SettlementAdapter } from '../../domain/settlement/adapter.js';
import type { SettlementProducer } from '../../jobs/settlement-producer.js';
import type { Handlers, HandlerResponse, HandlerRequest } from '../handler.js';
import { idempotent } from '../idempotent.js';
import { requireUser } from './principal.js';

export interface BalancesDeps {
  orm: Orm;
  producer: SettlementProducer;
  settlement: SettlementAdapter;
  /** DEPOSIT_SYNC_WAIT_MS: how long a deposit or withdrawal waits for settlement before answering 202. */
  syncWaitMs: number;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

export function balancesHandlers(deps: BalancesDeps): Handlers {
  const { orm, producer, syncWaitMs } = deps;
  const userScope = (req: HandlerRequest) => `user:${requireUser(req.auth).userId}`;

  /** Enqueue (a failure is left to the outbox relay), wait, and answer 200 / 202 / 422 SETTLEMENT_FAILED. */
  async function settleAndAnswer(req: HandlerRequest, op: OperationRecord, ok: (op: OperationRecord) => unknown): Promise<HandlerResponse> {
    try {
      await producer.enqueue(op.id);
    } catch (err) {
      req.log.warn({ err, operation_id: op.id }, 'could not enqueue settlement; the outbox relay will');
    }
    const final = syncWaitMs > 0 ? await waitForFinal(orm.em.fork(), op.id, syncWaitMs) : op;
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

  const withdraw = idempotent(orm, userScope, async (req) => {
    const { userId } = requireUser(req.auth);
    const body = req.body as WithdrawRequest;
    const op = await createWithdrawal(orm.em.fork(), userId, microsFromRequest(body.amount_micros), body.destination_address);
    return settleAndAnswer(req, op, (f) => ({
      amount_micros: microsToWire(f.amount),
      operation_id: f.id,
      destination_address: f.destinationAddress,
      tx_hash: f.txHash,
    }));
  });

  return {
    getAvailableBalance: async (req) => {
      const b = await userBalances(orm.em.fork(), requireUser(req.auth).userId);
      return { status: 200, body: { available_micros: microsToWire(b.available) }, headers: NO_STORE };
    },
    getReservedBalance: async (req) => {
      const b = await userBalances(orm.em.fork(), requireUser(req.auth).userId);
      return { status: 200, body: { reserved_micros: microsToWire(b.reserved) }, headers: NO_STORE };
    },
    getAvailableAppTokenBalance: async (req) => {
      const b = await userBalances(orm.em.fork(), requireUser(req.auth).userId);
      return { status: 200, body: { available_app_token_micros: microsToWire(b.appToken) }, headers: NO_STORE };
    },
    createDeposit: idempotent(orm, userScope, async (req) => {
      const { userId } = requireUser(req.auth);
      const body = req.body as DepositRequest;
      const op = await createDeposit(orm.em.fork(), userId, microsFromRequest(body.amount_micros));
      return settleAndAnswer(req, op, (f) => ({ amount_micros: microsToWire(f.amount), operation_id: f.id, tx_hash: f.txHash }));
    }),
    createWithdrawal: async (req) => {
      // EIP-55 is checked before the idempotency claim: like any validation failure, it is not stored.
      const body = req.body as WithdrawRequest;
      if (!isAddress(body.destination_address, { strict: true })) {
        throw new ValidationFailed('destination_address is not a valid EVM address: a mixed-case address must carry a valid EIP-55 checksum', [
          { in: 'body', path: '/destination_address', message: 'fails the EIP-55 checksum (use all lowercase, or the checksummed form)' },
        ]);
      }
      return withdraw(req);
    },
    getOperation: async (req) => {
      const { userId } = requireUser(req.auth);
      const op = await getOwnOperation(orm.em.fork(), userId, req.params.operation_id as string);
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
    getDepositWallet: async (req) => {
      const w = deps.settlement.depositWallet(requireUser(req.auth).userId);
      return { status: 200, body: { address: w.address, chain_id: w.chainId, asset: w.asset, mode: w.mode } };
    },
    creditAppTokens: idempotent(
      orm,
      (req) => `operator:user:${req.params.user_id as string}`,
      async (req) => {
        const userId = req.params.user_id as string;
        const body = req.body as AppTokenCreditRequest;
        const amount = microsFromRequest(body.amount_micros);
        const balance = await creditAppTokens(orm.em.fork(), userId, amount, `app-token-credit:${body.idempotency_key}`);
        return {
          status: 200,
          body: { user_id: userId, amount_micros: microsToWire(amount), available_app_token_micros: microsToWire(balance) },
          headers: NO_STORE,
        };
      },
    ),
  };
}
