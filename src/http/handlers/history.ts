// The signed-in user's history: deposits and withdrawals (listed, and one by id) and the statement of balance
// movements (spec/openapi.yaml; docs/partners.md, "History and a statement"). Reads only.
import { getAddress } from 'viem';
import type { BalanceSet, LedgerMovement, Operation } from '../../../generated/openapi/types.gen.js';
import { clampLimit } from '../../domain/contests/lobby.js';
import { microsToWire } from '../../domain/ledger/amounts.js';
import { ledgerStatement, type Balances, type Movement } from '../../domain/ledger/statement.js';
import { getOperationDetail, listOperations, type HistorySettings, type OperationDetail } from '../../domain/money/history.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { requireUser } from './principal.js';

/** The lobby's page bounds (GET /v1/contests). */
export const HISTORY_LIMIT = { default: 20, max: 50 } as const;
const limitOf = (n: number | undefined) => clampLimit(n === undefined ? undefined : Number(n), HISTORY_LIMIT.default, HISTORY_LIMIT.max);

export function operationWire(op: OperationDetail): Operation {
  return {
    operation_id: op.id,
    kind: op.kind,
    status: op.status,
    amount_micros: microsToWire(op.amount),
    fee_micros: microsToWire(op.fee),
    destination_address: op.destinationAddress && getAddress(op.destinationAddress),
    tx_hash: op.txHash,
    tx_hashes: op.txHashes,
    confirmations: op.confirmations,
    pending_reason: op.pendingReason,
    failure_code: op.failureCode,
    created_at_ms: op.createdAtMs,
    settled_at_ms: op.settledAtMs,
  };
}

const signed = (m: bigint) => m.toString(10);
const balanceSet = (b: Balances): BalanceSet => ({
  available_micros: microsToWire(b.available),
  reserved_micros: microsToWire(b.reserved),
  available_app_token_micros: microsToWire(b.appToken),
});

export function movementWire(m: Movement): LedgerMovement {
  return {
    movement_id: m.id,
    kind: m.kind,
    reference: m.reference,
    at_ms: m.atMs,
    change: {
      available_micros: signed(m.change.available),
      reserved_micros: signed(m.change.reserved),
      available_app_token_micros: signed(m.change.appToken),
    },
    balances_after: balanceSet(m.after),
  };
}

export function historyHandlers(settings: HistorySettings): HandlersFor<'listOperations' | 'getOperation' | 'listLedgerMovements'> {
  return {
    listOperations: async ({ query }, { db, auth }) => {
      const { userId } = requireUser(auth);
      const page = await listOperations(
        db,
        userId,
        { kind: query.kind, status: query.status, limit: limitOf(query.limit), cursor: query.cursor },
        settings,
      );
      return { status: 200, body: { operations: page.operations.map(operationWire), next_cursor: page.nextCursor }, headers: NO_STORE };
    },
    getOperation: async ({ params }, { db, auth }) => {
      const { userId } = requireUser(auth);
      return { status: 200, body: operationWire(await getOperationDetail(db, userId, params.operation_id, settings)), headers: NO_STORE };
    },
    listLedgerMovements: async ({ query }, { db, auth }) => {
      const { userId } = requireUser(auth);
      const page = await ledgerStatement(db, userId, { limit: limitOf(query.limit), cursor: query.cursor });
      return { status: 200, body: { movements: page.movements.map(movementWire), next_cursor: page.nextCursor }, headers: NO_STORE };
    },
  };
}
