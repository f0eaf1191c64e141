// Every kind of ledger posting, and what its `reference` names. A Posting's kind is one of these (ledger.ts),
// and the statement (GET /v1/users/ledger) shows each with its reference typed. `satisfies` holds the table
// to the spec's LedgerMovementKind both ways (a missing key and an extra one both fail tsc): a new kind of
// posting needs its row here and its line in spec/openapi.yaml. rfq_reserve is also written by the rfq_create SQL function (migration ..._rfq_fill_path).
import type { LedgerMovement, LedgerMovementKind } from '../../../generated/openapi/types.gen.js';

export type LedgerReferenceType = LedgerMovement['reference']['type'];

export const LEDGER_KINDS = {
  deposit: 'operation',
  withdraw_reserve: 'operation',
  withdraw_settle: 'operation',
  withdraw_refund: 'operation',
  rfq_reserve: 'rfq',
  rfq_release: 'rfq',
  rfq_fill: 'position',
  position_settle: 'market_window',
  contest_entry: 'contest_entry',
  contest_refund: 'contest',
  contest_payout: 'contest',
  app_token_credit: 'app_token_credit',
} as const satisfies Record<LedgerMovementKind, LedgerReferenceType>;

export type LedgerKind = keyof typeof LEDGER_KINDS;

export interface LedgerReference {
  type: LedgerReferenceType;
  id: string;
}

/** How a reference is written for the kinds that prefix it (`reference` of the postings: settle.ts, app-tokens.ts). */
const PREFIX: Partial<Record<LedgerReferenceType, string>> = { market_window: 'window:', app_token_credit: 'app-token-credit:' };

export function isLedgerKind(kind: string): kind is LedgerKind {
  return Object.hasOwn(LEDGER_KINDS, kind);
}

/** The posting's reference, typed by its kind: `window:1042` of a settlement is the market window `1042`. */
export function ledgerReference(kind: LedgerKind, reference: string): LedgerReference {
  const type = LEDGER_KINDS[kind];
  const prefix = PREFIX[type];
  return { type, id: prefix && reference.startsWith(prefix) ? reference.slice(prefix.length) : reference };
}
