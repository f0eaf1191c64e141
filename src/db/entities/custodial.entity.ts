import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// Custodial deposits: registered deposit addresses, the listener's cursor, credited Transfer logs and sweeps
// (migration ..._custodial_deposits; docs/settlement-custodial.md).

export const DepositAddressSchema = defineEntity({
  name: 'DepositAddress',
  tableName: 'deposit_addresses',
  properties: {
    /** EIP-55, as derived (m/44'/60'/0'/0/<deposit_index> of DEPOSIT_MNEMONIC). */
    address: p.text().primary(),
    userId: p.uuid().fieldName('user_id'),
    depositIndex: p.bigint('string').fieldName('deposit_index'),
    /** The chain's head when the address was first handed out: no transfer to it can be older. */
    fromBlock: p.bigint('string').fieldName('from_block'),
    /** Credits so far; the address is due for a sweep while it is above sweep_mark. */
    credits: p.bigint('string').default('0'),
    /** `credits` as seen when the last sweep opened (or the balance was found below DEPOSIT_SWEEP_MIN_MICROS). */
    sweepMark: p.bigint('string').fieldName('sweep_mark').default('0'),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    /** Sweeps of this address whose transfer reverted in a row (migration ..._chain_tx). */
    sweepFailures: p.integer().fieldName('sweep_failures').default(0),
    /** No new sweep before this (backoff after a reverted one). */
    sweepRetryAt: timestamptz().fieldName('sweep_retry_at').nullable(),
    /** Set when sweeps stop for this address (e.g. `blacklisted`); no top-up is sent while parked. */
    parkedReason: p.text().fieldName('parked_reason').nullable(),
    parkedAt: timestamptz().fieldName('parked_at').nullable(),
  },
});

export const ChainCursorSchema = defineEntity({
  name: 'ChainCursor',
  tableName: 'chain_cursors',
  properties: {
    chainId: p.integer().primary().fieldName('chain_id'),
    name: p.text().primary(),
    /** The last block scanned (confirmed), and its hash when it was scanned. */
    blockNumber: p.bigint('string').fieldName('block_number'),
    blockHash: p.text().fieldName('block_hash'),
    updatedAt: timestamptz().fieldName('updated_at').defaultRaw('now()'),
  },
});

export const ChainDepositSchema = defineEntity({
  name: 'ChainDeposit',
  tableName: 'chain_deposits',
  properties: {
    chainId: p.integer().primary().fieldName('chain_id'),
    txHash: p.text().primary().fieldName('tx_hash'),
    logIndex: p.integer().primary().fieldName('log_index'),
    blockNumber: p.bigint('string').fieldName('block_number'),
    blockHash: p.text().fieldName('block_hash'),
    fromAddress: p.text().fieldName('from_address'),
    toAddress: p.text().fieldName('to_address'),
    amount: p.bigint('string'),
    operationId: p.uuid().fieldName('operation_id'),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});

export const DepositSweepSchema = defineEntity({
  name: 'DepositSweep',
  tableName: 'deposit_sweeps',
  properties: {
    id: p.uuid().primary(),
    chainId: p.integer().fieldName('chain_id'),
    address: p.text(),
    /** topup: gas is being sent to the address; transfer: its USDC is being sent to the settlement wallet. */
    status: p.enum(['topup', 'transfer', 'done', 'failed'] as const),
    /** The USDC micros the transfer moves (set when it is signed). */
    amount: p.bigint('string').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    updatedAt: timestamptz().fieldName('updated_at').defaultRaw('now()'),
  },
});

/** What the workers' reconcile-chain job last read from the chain, one row per chain (migration ..._chain_observations). */
export const ChainObservationSchema = defineEntity({
  name: 'ChainObservation',
  tableName: 'chain_observations',
  properties: {
    chainId: p.integer().primary().autoincrement(false).fieldName('chain_id'),
    observedAt: timestamptz().fieldName('observed_at').defaultRaw('now()'),
    figures: p.json<unknown>().columnType('jsonb'),
  },
});
