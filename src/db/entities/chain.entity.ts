import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// Onchain settlement: the settlement wallet's nonces and every transaction it signed (migration ..._onchain_settlement).

export const ChainNonceSchema = defineEntity({
  name: 'ChainNonce',
  tableName: 'chain_nonces',
  properties: {
    chainId: p.integer().primary().fieldName('chain_id'),
    address: p.text().primary(),
    nextNonce: p.bigint('string').fieldName('next_nonce'),
  },
});

export const ChainTransactionSchema = defineEntity({
  name: 'ChainTransaction',
  tableName: 'chain_transactions',
  properties: {
    hash: p.text().primary(),
    chainId: p.integer().fieldName('chain_id'),
    /** The deposit or withdrawal it settles; null for a custodial sweep's transaction (sweepId). */
    operationId: p.uuid().fieldName('operation_id').nullable(),
    /** The custodial sweep (top-up or transfer) it belongs to (deposit_sweeps, docs/settlement-custodial.md). */
    sweepId: p.uuid().fieldName('sweep_id').nullable(),
    fromAddress: p.text().fieldName('from_address'),
    nonce: p.bigint('string'),
    /** 0: the first signature; 1, 2, ...: same-nonce replacements at a higher fee. */
    attempt: p.integer(),
    /** The signed transaction (0x hex), broadcast as is, again after a restart. */
    raw: p.text(),
    maxFeePerGas: p.bigint('string').fieldName('max_fee_per_gas'),
    maxPriorityFeePerGas: p.bigint('string').fieldName('max_priority_fee_per_gas'),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    /** Set once mined with CHAIN_CONFIRMATIONS confirmations (`dropped` only in rows of earlier versions). */
    blockNumber: p.bigint('string').fieldName('block_number').nullable(),
    receiptStatus: p
      .enum(['success', 'reverted', 'dropped'] as const)
      .fieldName('receipt_status')
      .nullable(),
    /** What the transaction is for (migration ..._chain_tx): the owner column that is set follows from it. */
    purpose: p.enum(['operation', 'sweep', 'filler', 'cold_sweep'] as const).default('operation'),
    /** A filler's or a cold sweep's transaction (its attempts share it). */
    intentId: p.uuid().fieldName('intent_id').nullable(),
    gasLimit: p.bigint('string').fieldName('gas_limit').default('150000'),
    /** The class of the node's last refusal of these bytes (src/domain/settlement/onchain/chain-tx/refusals.ts). */
    broadcastError: p
      .enum(['nonce_too_low', 'underpriced', 'insufficient_funds', 'other'] as const)
      .fieldName('broadcast_error')
      .nullable(),
    /** When the nonce was first seen used on chain with no receipt served for this transaction. */
    unprovenSince: timestamptz().fieldName('unproven_since').nullable(),
  },
});
