import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// The double-entry ledger (migration ..._ledger). int8 columns are declared in 'string' mode: both drivers
// return int8 as a decimal string (src/db/pglite.ts makes PGlite agree with pg), and src/db/int8.ts parses
// them, money as bigint, in one place.

export const LEDGER_ACCOUNT_KINDS = [
  'user_available',
  'user_reserved',
  'user_app_token',
  'settlement_clearing',
  'treasury',
  'contest_pot',
] as const;

export const LedgerAccountSchema = defineEntity({
  name: 'LedgerAccount',
  tableName: 'ledger_accounts',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    userId: p.uuid().fieldName('user_id').nullable(),
    kind: p.enum(LEDGER_ACCOUNT_KINDS),
    /** Cached sum of the account's entries, kept by the ledger_entries_apply trigger. */
    balance: p.bigint('string').default(0),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    /** Set for kind contest_pot only. */
    contestId: p.uuid().fieldName('contest_id').nullable(),
  },
});

export const LedgerTransactionSchema = defineEntity({
  name: 'LedgerTransaction',
  tableName: 'ledger_transactions',
  properties: {
    id: p.uuid().primary(),
    kind: p.text(),
    reference: p.text(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    /** App-token credits: "<user id>:<key>", unique per kind (a second credit of one request cannot commit). */
    idempotencyKey: p.text().fieldName('idempotency_key').nullable(),
  },
});

export const LedgerEntrySchema = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    transactionId: p.uuid().fieldName('transaction_id'),
    accountId: p.bigint('string').fieldName('account_id'),
    amount: p.bigint('string'),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});
