// Market makers: registered and removed by operators, authenticated on the WebSocket (src/ws). Removal
// and session creation lock the same market_makers row, so a handshake racing a removal either finishes
// first (and its session is revoked by the removal) or sees the removal (unknown_market_maker).
import { randomUUID } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound, ValidationFailed } from '../errors.js';
import { newSessionToken, type IssuedSession } from '../identity/sessions.js';
import { repos } from '../../db/repos.js';

export const MARKET_MAKER_TOKEN_PREFIX = 'mm_';

export interface MarketMakerRecord {
  walletAddress: string;
  name: string;
  createdAtMs: number;
}

/** EIP-55 form of a lowercase or correctly checksummed address; null for mixed case with a bad checksum. */
export function checksumAddress(address: string): string | null {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return null;
  const lower = address === address.toLowerCase();
  if (!lower && !isAddress(address, { strict: true })) return null;
  return getAddress(address);
}

/** Registers a wallet (again, if it was removed). 409 MARKET_MAKER_EXISTS when it is registered. */
export async function registerMarketMaker(em: Em, walletAddress: string, name: string): Promise<MarketMakerRecord> {
  const address = checksumAddress(walletAddress);
  if (!address) {
    throw new ValidationFailed('wallet_address is mixed case but not a valid EIP-55 checksum', [
      { in: 'body', path: '/wallet_address', message: 'must be lowercase hex or a valid EIP-55 checksum address' },
    ]);
  }
  const row = await repos(em).marketMakers.register(address, name);
  if (!row) throw new Conflict('MARKET_MAKER_EXISTS', 'This wallet is already a registered market maker.');
  return { walletAddress: row.wallet_address, name: row.name, createdAtMs: row.created_ms };
}

export interface RemovedMarketMaker {
  walletAddress: string;
  revokedSessions: number;
  /** The maker's quotes that were live: cancelled by the removal (RFQ ids, to wake their watchers). */
  withdrawnQuotes: Array<{ id: string; rfqId: string }>;
}

/**
 * Removes a market maker, revokes its sessions and cancels every live quote of it, in one transaction:
 * once it commits no quote of the maker can fill (the fill also skips quotes of unregistered makers).
 * 404 NOT_FOUND when not registered.
 */
export async function removeMarketMaker(em: Em, walletAddress: string): Promise<RemovedMarketMaker> {
  return em.transactional(async (tx) => {
    const repo = repos(tx).marketMakers;
    const row = await repo.remove(walletAddress);
    if (!row) throw new NotFound('NOT_FOUND', 'No registered market maker has this wallet address.');
    const revoked = await repo.revokeSessions(row.wallet_address);
    const withdrawn = await repo.withdrawLiveQuotes(row.wallet_address);
    return {
      walletAddress: row.wallet_address,
      revokedSessions: revoked.length,
      withdrawnQuotes: withdrawn.map((q) => ({ id: q.id, rfqId: q.rfq_id })),
    };
  });
}

/**
 * Starts a market-maker session for a wallet whose signature was verified, if it is a registered,
 * not-removed market maker (null otherwise). The row lock (FOR SHARE) orders this against a removal.
 */
export async function createMarketMakerSession(
  em: Em,
  walletAddress: string,
  ttlMs: number,
): Promise<(IssuedSession & { walletAddress: string; expiresAtMs: number }) | null> {
  const { token, hash } = newSessionToken(MARKET_MAKER_TOKEN_PREFIX);
  const sessionId = randomUUID();
  // One statement (the maker's row FOR SHARE, the session inserted): a handshake's only database round trip.
  const row = await repos(em).marketMakers.insertSessionIfActive({ id: sessionId, tokenHash: hash, walletAddress, ttlMs });
  if (!row?.market_maker_address) return null;
  const expiresAtMs = row.expires_ms;
  return { sessionId, token, walletAddress: row.market_maker_address, expiresAtMs, expiresAt: Math.floor(expiresAtMs / 1000) };
}

/**
 * Of the given session ids, those that were revoked or whose market maker was removed (not those that
 * merely expired: the gateway times expiry itself). One query for all of a process's connections.
 */
export async function endedSessionIds(em: Em, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await repos(em).marketMakers.endedSessions(sessionIds);
  return new Set(rows.map((r) => r.id));
}
