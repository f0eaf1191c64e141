// Idempotency keys, one mechanism for every retryable write. Scope (who: a user, or the operator acting
// on a user), operation (the operationId) and key (the client's UUID) identify a request; the stored
// fingerprint (SHA-256 of the canonical JSON body) tells a replay from a reuse.
//   claim():  INSERT ... ON CONFLICT DO NOTHING. The first request owns the key (state in_progress).
//   complete(): stores the first response (status and body, domain errors such as 422 included) so every
//               replay answers the same.
//   release(): deletes the claim after an unexpected failure (500/503), so a retry can run again.
// Requests that fail validation never reach this module (the spec validator answers first).
import { createHash } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { Conflict } from './errors.js';

export interface IdempotencyScope {
  scope: string;
  operation: string;
  key: string;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown };

/** Keys are kept at least this long (pruned by the idempotency queue's scheduled job). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

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

interface KeyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
}

export async function claim(em: Em, s: IdempotencyScope, print: string): Promise<ClaimResult> {
  const inserted = await em.execute<Array<{ key: string }>>(
    `insert into idempotency_keys (scope, operation, key, fingerprint, state) values (?, ?, ?, ?, 'in_progress')
     on conflict do nothing returning key`,
    [s.scope, s.operation, s.key, print],
  );
  if (inserted[0]) return { kind: 'claimed' };
  const rows = await em.execute<KeyRow[]>(
    'select fingerprint, state, response_status, response_body from idempotency_keys where scope = ? and operation = ? and key = ?',
    [s.scope, s.operation, s.key],
  );
  const row = rows[0];
  if (!row) return claim(em, s, print); // released between our insert and select: try again
  if (row.fingerprint !== print) {
    throw new Conflict('IDEMPOTENCY_KEY_REUSED', 'this idempotency_key was already used with a different request body; use a new key for a new request');
  }
  if (row.state === 'in_progress') {
    throw new Conflict('IDEMPOTENCY_REQUEST_IN_PROGRESS', 'a request with this idempotency_key is still being processed; retry later with the same key');
  }
  const body = typeof row.response_body === 'string' ? (JSON.parse(row.response_body) as unknown) : row.response_body;
  return { kind: 'replay', status: row.response_status!, body };
}

export async function complete(em: Em, s: IdempotencyScope, status: number, body: unknown): Promise<void> {
  await em.execute(
    `update idempotency_keys set state = 'done', response_status = ?, response_body = ?::jsonb, completed_at = now()
      where scope = ? and operation = ? and key = ?`,
    [status, JSON.stringify(body ?? null), s.scope, s.operation, s.key],
    'run',
  );
}

export async function release(em: Em, s: IdempotencyScope): Promise<void> {
  await em.execute(`delete from idempotency_keys where scope = ? and operation = ? and key = ? and state = 'in_progress'`, [s.scope, s.operation, s.key], 'run');
}

/** Deletes keys older than the retention; returns how many. */
export async function pruneIdempotencyKeys(em: Em, retentionMs = IDEMPOTENCY_RETENTION_MS): Promise<number> {
  const rows = await em.execute<Array<{ n: number }>>(
    `with gone as (delete from idempotency_keys where created_at < now() - (? * interval '1 millisecond') returning 1) select count(*)::int as n from gone`,
    [retentionMs],
  );
  return rows[0]?.n ?? 0;
}
