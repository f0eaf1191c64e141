// The signed-in user's history, every page followed: `operationsHistory` (GET /v1/users/operations) and
// `statement` (GET /v1/users/ledger). Both are async iterators over the generated calls (listOperations,
// listLedgerMovements), which stay available for one page at a time.
import type { Client } from '../../generated/sdk/client/index.ts';
import { listLedgerMovements, listOperations } from '../../generated/sdk/sdk.gen.ts';
import type { LedgerMovement, ListOperationsData, Operation } from '../../generated/sdk/types.gen.ts';

/** A page the service refused (its `{error, code, details}` body), e.g. `INVALID_CURSOR`. */
export class HistoryRequestError extends Error {
  constructor(
    readonly status: number | undefined,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'HistoryRequestError';
  }
}

type Page<T> = { data?: T; error?: unknown; response?: Response };

function pageOf<T>(res: Page<T>, path: string): T {
  if (res.error !== undefined || !res.data) {
    const e = res.error as { code?: string; error?: string } | undefined;
    throw new HistoryRequestError(
      res.response?.status,
      e?.code,
      `GET ${path} failed (${res.response?.status ?? 'no response'}): ${e?.error ?? JSON.stringify(res.error)}`,
    );
  }
  return res.data;
}

/** Every deposit and withdrawal of the signed-in user, newest first, with `filters` (`kind`, `status`). */
export async function* operationsHistory(
  client: Client,
  filters: Omit<NonNullable<ListOperationsData['query']>, 'cursor'> = {},
): AsyncGenerator<Operation, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = pageOf(await listOperations({ client, query: { ...filters, ...(cursor ? { cursor } : {}) } }), '/v1/users/operations');
    yield* page.operations;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/**
 * The signed-in user's statement, newest first: every balance movement with its `change` and `balances_after`.
 * A snapshot of the first page's instant: movements that commit while it is read are not in it, and the
 * `change`s add up to the first movement's `balances_after`.
 */
export async function* statement(client: Client, opts: { limit?: number } = {}): AsyncGenerator<LedgerMovement, void, undefined> {
  let cursor: string | undefined;
  do {
    const query = { ...(opts.limit ? { limit: opts.limit } : {}), ...(cursor ? { cursor } : {}) };
    const page = pageOf(await listLedgerMovements({ client, query }), '/v1/users/ledger');
    yield* page.movements;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
