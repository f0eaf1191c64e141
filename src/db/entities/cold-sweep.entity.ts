import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// The cold wallet (migration ..._cold_wallet_signer; docs/operations.md, "Custody"): each move of the settlement
// wallet's USDC above HOT_WALLET_MAX_MICROS to COLD_WALLET_ADDRESS. Its transaction is a chain_transactions row
// with purpose 'cold_sweep' and intent_id = id.

export const ColdSweepSchema = defineEntity({
  name: 'ColdSweep',
  tableName: 'cold_sweeps',
  properties: {
    id: p.uuid().primary(),
    chainId: p.integer().fieldName('chain_id'),
    /** COLD_WALLET_ADDRESS when the sweep was opened (EIP-55). */
    toAddress: p.text().fieldName('to_address'),
    /** USDC micros, fixed when the sweep is opened. */
    amount: p.bigint('string'),
    /** open: its transaction is not recorded yet (at most one per chain); cancelled: refused before any signature. */
    status: p.enum(['open', 'done', 'reverted', 'cancelled'] as const),
    /** Why an open sweep waits (as an operation's pending_reason). */
    waitReason: p.text().fieldName('wait_reason').nullable(),
    /** Why it was cancelled. */
    reason: p.text().nullable(),
    txHash: p.text().fieldName('tx_hash').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    finishedAt: timestamptz().fieldName('finished_at').nullable(),
  },
});
