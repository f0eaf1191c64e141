// Idempotency keys: exactly once by construction. Scope (who: a user, or the operator acting on a user),
// operation (the operationId) and key (the client's UUID) identify a request; the stored fingerprint
// (SHA-256 of the canonical JSON body) tells a replay from a reuse.
//
// once(): ONE database transaction claims the key (INSERT ... ON CONFLICT DO NOTHING), does the write and
// stores the outcome (status, body, and the id of the resource written). Either all of it commits or none
// of it: an error at any point, or a process killed at any point, leaves no key and no write, and a
// retry runs afresh; once it has committed, every retry replays the stored outcome. A concurrent
// duplicate blocks on the uncommitted key row (at most DUPLICATE_WAIT_MS, then 409 in progress) and then
// replays. A domain rejection (4xx) rolls the transaction back and stores the rejection under the key in a
// second one (or answers what another request stored there meanwhile).
// The writes also carry the key under a unique index of their own (operations, contest entries, ledger
// transactions), so even a key row that is gone cannot let a second write commit.
//
// A key row is `in_progress` only inside once()'s transaction, so another request never sees one
// committed. (A leftover of an earlier version's two-phase claim answers 409 in progress until pruning
// deletes it after the retention; a retry then runs afresh and its write's own unique key finds any
// earlier write.)
// Requests that fail validation never reach this module (the spec validator answers first).
import { createHash } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { type IdempotencyKeyRow as KeyRow } from '../db/repositories/idempotency.repository.js';
import { AppError, Conflict } from './errors.js';
import { isTransientConflict } from './database-errors.js';
import { repos } from '../db/repos.js';
import { inTransaction, type Tx } from '../db/unit-of-work.js';

export interface IdempotencyScope {
  scope: string;
  operation: string;
  key: string;
}

/** What a replay answers: the first response, and the resource (operation, entry...) it refers to. */
export interface StoredOutcome {
  status: number;
  body: unknown;
  resourceId: string | null;
}

export type OnceResult<T> = { replayed: false; value: T; outcome: StoredOutcome } | { replayed: true; outcome: StoredOutcome };

export type ClaimResult = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown; resourceId: string | null };

/** Keys are kept at least this long (pruned by the idempotency queue's scheduled job). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
/** How long a concurrent duplicate waits for the first request's transaction before 409 in progress. */
export const DUPLICATE_WAIT_MS = 5_000;

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export const fingerprint = (body: unknown) => createHash('sha256').update(canonicalJson(body)).digest('hex');

export interface ExistingKey {
  fingerprint: string;
  state: 'in_progress' | 'done';
}

export type ExistingDecision = 'reused' | 'replay' | 'in_progress';

/** Pure: what a request does about a committed key row with the same (scope, operation, key). */
export function decideExisting(row: ExistingKey, print: string): ExistingDecision {
  if (row.fingerprint !== print) return 'reused';
  return row.state === 'done' ? 'replay' : 'in_progress';
}

const reused = () =>
  new Conflict(
    'IDEMPOTENCY_KEY_REUSED',
    'this idempotency_key was already used with a different request body; use a new key for a new request',
  );
const inProgress = () =>
  new Conflict(
    'IDEMPOTENCY_REQUEST_IN_PROGRESS',
    'a request with this idempotency_key is still being processed; retry later with the same key',
  );

const keys = (em: Em) => repos(em).idempotency;

function replayOf(row: KeyRow): ClaimResult {
  const body = typeof row.response_body === 'string' ? (JSON.parse(row.response_body) as unknown) : row.response_body;
  return { kind: 'replay', status: row.response_status!, body, resourceId: row.resource_id };
}

/** Inside the caller's transaction: claims the key (waiting for a concurrent holder), or says what to replay. */
async function claimIn(tx: Em, s: IdempotencyScope, print: string): Promise<ClaimResult> {
  // Bound the wait for a concurrent request's uncommitted key row (55P03 answers 409 in progress). A new
  // key (the common case) is one statement, which also restores lock_timeout once inserted.
  // Decided in SQL (IdempotencyRepository.insertWaiting: ON CONFLICT DO NOTHING on the key): which request claims a key.
  const claimed = await keys(tx).insertWaiting(s, print, DUPLICATE_WAIT_MS);
  if (claimed) return { kind: 'claimed' };
  const row = await keys(tx).read(s);
  await keys(tx).lockTimeout(null);
  if (!row) return claimIn(tx, s, print); // deleted between our insert and select: try again
  const d = decideExisting(row, print);
  if (d === 'reused') throw reused();
  if (d === 'in_progress') throw inProgress();
  return replayOf(row);
}

async function store(em: Em, s: IdempotencyScope, o: StoredOutcome): Promise<void> {
  await keys(em).store(s, o.status, JSON.stringify(o.body ?? null), o.resourceId);
}

export const errorBody = (err: AppError) => ({ error: err.message, code: err.code, details: err.details });

/** Runs of a write whose transaction hit a deadlock or serialization failure, the first included. */
export const TRANSIENT_ATTEMPTS = 3;

/**
 * Runs `write` exactly once per key: claim, write and stored outcome in one transaction (see the top of
 * this file). `outcomeOf` gives the response to store for a successful write. A 4xx AppError thrown by
 * the write is stored (the write rolled back) and rethrown; any other error rolls everything back.
 */
export async function once<T>(
  em: Em,
  s: IdempotencyScope,
  print: string,
  write: (tx: Tx) => Promise<T>,
  outcomeOf: (value: T) => StoredOutcome,
): Promise<OnceResult<T>> {
  let rejected: AppError | undefined;
  // A deadlock or serialization failure rolled the whole transaction back (claim included): it runs again, at most
  // TRANSIENT_ATTEMPTS times, before the request is answered 503. One user's writes can deadlock with a worker's
  // (both take the user's balance rows and the user event log's head row: src/db/migrations/
  // Migration20261130010000_user_events.ts), and a client should not have to retry what the service can.
  for (let attempt = 1; !rejected; attempt++) {
    try {
      return await inTransaction(em, async (tx): Promise<OnceResult<T>> => {
        const claim = await claimIn(tx, s, print);
        if (claim.kind === 'replay') return replayed(claim);
        const value = await write(tx);
        const outcome = outcomeOf(value);
        await store(tx, s, outcome);
        return { replayed: false, value, outcome };
      });
    } catch (err) {
      if (isTransientConflict(err) && attempt < TRANSIENT_ATTEMPTS) continue;
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      rejected = err;
    }
  }
  // A domain rejection rolled back the claim with the write (no savepoint: one statement fewer on every
  // write that succeeds). Store it under the key in a transaction of its own; if another request took the
  // key in between, its outcome is the key's, and this request answers it as a replay.
  const stored = await em.transactional(async (tx): Promise<OnceResult<T> | null> => {
    const claim = await claimIn(tx, s, print);
    if (claim.kind === 'replay') return replayed(claim);
    await store(tx, s, { status: rejected.status, body: errorBody(rejected), resourceId: null });
    return null;
  });
  if (stored) return stored;
  throw rejected;
}

const replayed = (claim: Extract<ClaimResult, { kind: 'replay' }>): OnceResult<never> => ({
  replayed: true,
  outcome: { status: claim.status, body: claim.body, resourceId: claim.resourceId },
});

/**
 * Deletes keys older than the retention, except a done key referring to an operation still pending (its
 * retry answers from the operation's current state); an in-progress one is an earlier version's leftover.
 * Returns how many were deleted.
 */
export async function pruneIdempotencyKeys(em: Em, retentionMs = IDEMPOTENCY_RETENTION_MS): Promise<number> {
  return keys(em).prune(retentionMs);
}
