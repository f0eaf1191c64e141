// Bearer sessions. A token is a kind prefix and 256 CSPRNG bits (base64url); only its SHA-256 is
// stored, so the sessions table holds no usable credential. Expiry and revocation are checked by the
// database clock on every lookup, so logout takes effect on the very next request.
import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { repos } from '../../db/repos.js';

export const USER_TOKEN_PREFIX = 'us_';

/** Longest token worth a database lookup; anything longer cannot be ours. */
const MAX_TOKEN_LENGTH = 256;

export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export function newSessionToken(prefix: string): { token: string; hash: Buffer } {
  const token = `${prefix}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

export interface IssuedSession {
  sessionId: string;
  token: string;
  /** Unix seconds (floor of the stored expiry). */
  expiresAt: number;
}

export async function createUserSession(em: Em, userId: string, ttlSeconds: number): Promise<IssuedSession> {
  const { token, hash } = newSessionToken(USER_TOKEN_PREFIX);
  const sessionId = randomUUID();
  const row = await repos(em).identity.insertUserSession({ id: sessionId, tokenHash: hash, userId, ttlSeconds });
  return { sessionId, token, expiresAt: Math.floor(Number(row.expires_epoch)) };
}

export type SessionPrincipal =
  { kind: 'user'; sessionId: string; userId: string; address: string } | { kind: 'market_maker'; sessionId: string; walletAddress: string };

/** A live session and when it expires (epoch ms, the database's clock). */
export interface LiveSession {
  principal: SessionPrincipal;
  expiresAtMs: number;
}

/** Tokens that could be ours: anything else is refused without a lookup. */
export const plausibleToken = (token: string): boolean => token.length > 0 && token.length <= MAX_TOKEN_LENGTH;

/** The live (unrevoked, unexpired) session of a token's hash (hashToken), or null. */
export async function liveSessionByHash(em: Em, tokenHash: Buffer): Promise<LiveSession | null> {
  const row = await repos(em).identity.liveSession(tokenHash);
  if (!row) return null;
  const expiresAtMs = row.expires_ms;
  if (row.kind === 'user' && row.user_id && row.wallet_address) {
    return { principal: { kind: 'user', sessionId: row.id, userId: row.user_id, address: row.wallet_address }, expiresAtMs };
  }
  if (row.kind === 'market_maker' && row.market_maker_address) {
    return { principal: { kind: 'market_maker', sessionId: row.id, walletAddress: row.market_maker_address }, expiresAtMs };
  }
  return null;
}

/** Revokes one session; idempotent. */
export async function revokeSession(em: Em, sessionId: string): Promise<void> {
  await repos(em).identity.revokeSession(sessionId);
}

/** Which of these sessions were revoked (logout) or are no longer kept: the user channel ends their connections. */
export async function revokedSessionIds(em: Em, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const kept = new Set((await repos(em).identity.unrevokedSessions(sessionIds)).map((r) => r.id));
  return new Set(sessionIds.filter((id) => !kept.has(id)));
}
