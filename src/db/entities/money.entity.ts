import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// Deposits and withdrawals, their settlement outbox, and idempotency keys (migration ..._ledger).

export const OperationSchema = defineEntity({
  name: 'Operation',
  tableName: 'operations',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid().fieldName('user_id'),
    kind: p.enum(['deposit', 'withdraw'] as const),
    status: p.enum(['pending', 'success', 'failed'] as const).default('pending'),
    amount: p.bigint('string'),
    destinationAddress: p.text().fieldName('destination_address').nullable(),
    txHash: p.text().fieldName('tx_hash').nullable(),
    failureCode: p.text().fieldName('failure_code').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    settledAt: timestamptz().fieldName('settled_at').nullable(),
    /** Why a pending operation waits (migration ..._settlement_review); null when it simply has not settled yet. */
    pendingReason: p
      .enum([
        'receipt_missing',
        'needs_review',
        'confirmations',
        'mempool',
        'queued',
        'nonce_gap',
        'fee_cap',
        'hot_wallet_funds',
        'gas',
        'token_paused',
        'hot_wallet_blocked',
        'review',
        'signer',
      ] as const)
      .fieldName('pending_reason')
      .nullable(),
    /** When pendingReason began. */
    pendingReasonAt: timestamptz().fieldName('pending_reason_at').nullable(),
    /** A withdrawal's fee (migration ..._withdrawal_controls): reserved with the amount, posted to the treasury when paid; 0 on deposits. */
    feeMicros: p.bigint('string').fieldName('fee_micros').default('0'),
    /** Unique per (user_id, kind): a second operation for one request cannot commit. */
    idempotencyKey: p.uuid().fieldName('idempotency_key').nullable(),
  },
});

export const OperationOutboxSchema = defineEntity({
  name: 'OperationOutbox',
  tableName: 'operation_outbox',
  properties: {
    operationId: p.uuid().primary().fieldName('operation_id'),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    enqueuedAt: timestamptz().fieldName('enqueued_at').nullable(),
    /** When the outbox relay next hands the operation to a worker. */
    dueAt: timestamptz().fieldName('due_at').defaultRaw('now()'),
  },
});

/** An operator's resolution of an operation in review (POST /v1/admin/operations/{operation_id}/resolve). */
export const SettlementResolutionSchema = defineEntity({
  name: 'SettlementResolution',
  tableName: 'settlement_resolutions',
  properties: {
    operationId: p.uuid().primary().fieldName('operation_id'),
    outcome: p.enum(['success', 'failed'] as const),
    /** The mined transaction that executed the operation (outcome success only). */
    txHash: p.text().fieldName('tx_hash').nullable(),
    reason: p.text(),
    /** outcome failed: the operation's failure code (null: SETTLEMENT_FAILED). */
    failureCode: p.text().fieldName('failure_code').nullable(),
    /** The operator account that resolved it. */
    operator: p.text(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});

/** A withdrawal held for an operator's review, and the decision (docs/operations.md, "Custody"). */
export const WithdrawalReviewSchema = defineEntity({
  name: 'WithdrawalReview',
  tableName: 'withdrawal_reviews',
  properties: {
    operationId: p.uuid().primary().fieldName('operation_id'),
    /** Why it was held: above_review_threshold, hourly_limit (one or both). */
    causes: p.array<string>().columnType('text[]'),
    heldAt: timestamptz().fieldName('held_at').defaultRaw('now()'),
    decision: p.enum(['approved', 'rejected'] as const).nullable(),
    /** The operator's reason (required to reject). */
    reason: p.text().nullable(),
    /** The operator account that decided. */
    operator: p.text().nullable(),
    decidedAt: timestamptz().fieldName('decided_at').nullable(),
  },
});

export const IdempotencyKeySchema = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    scope: p.text().primary(),
    operation: p.text().primary(),
    key: p.uuid().primary(),
    fingerprint: p.text(),
    state: p.enum(['in_progress', 'done'] as const),
    responseStatus: p.integer().fieldName('response_status').nullable(),
    /** json, not jsonb: a replay answers the first body byte for byte. */
    responseBody: p.json<unknown>().fieldName('response_body').columnType('json').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    completedAt: timestamptz().fieldName('completed_at').nullable(),
    /** The operation, entry or ledger transaction the stored outcome refers to. */
    resourceId: p.uuid().fieldName('resource_id').nullable(),
    /** Set while in progress: after it a retry takes the key over. */
    leaseExpiresAt: timestamptz().fieldName('lease_expires_at').nullable(),
  },
});
