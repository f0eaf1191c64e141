// Market makers: registered and removed by operators, authenticated on the WebSocket (src/ws). Removal
// and session creation lock the same market_makers row, so a handshake racing a removal either finishes
// first (and its session is revoked by the removal) or sees the removal (unknown_market_maker).
import { randomUUID } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound, ValidationFailed } from '../errors.js';
import { newSessionToken, type IssuedSession } from '../identity/sessions.js';

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

interface MmRow {
  wallet_address: string;
  name: string;
  created_ms: string | number;
}

/** Registers a wallet (again, if it was removed). 409 MARKET_MAKER_EXISTS when it is registered. */
export async function registerMarketMaker(em: Em, walletAddress: string, name: string): Promise<MarketMakerRecord> {
  const address = checksumAddress(walletAddress);
  if (!address) {
    throw new ValidationFailed('wallet_address is mixed case but not a valid EIP-55 checksum', [
      { in: 'body', path: '/wallet_address', message: 'must be lowercase hex or a valid EIP-55 checksum address' },
    ]);
  }
  const rows = await em.execute<MmRow[]>(
    `insert into market_makers (wallet_address, name) values (?, ?)
     on conflict ((lower(wallet_address))) do update
        set wallet_address = excluded.wallet_address, name = excluded.name, created_at = now(), removed_at = null
      where market_makers.removed_at is not null
     returning wallet_address, name, (extract(epoch from created_at) * 1000)::bigint as created_ms`,
    [address, name],
  );
  const row = rows[0];
  if (!row) throw new Conflict('MARKET_MAKER_EXISTS', 'This wallet is already a registered market maker.');
  return { walletAddress: row.wallet_address, name: row.name, createdAtMs: Number(row.created_ms) };
}

/** Removes a market maker and revokes its sessions in one transaction. 404 NOT_FOUND when not registered. */
export async function removeMarketMaker(em: Em, walletAddress: string): Promise<{ walletAddress: string; revokedSessions: number }> {
  return em.transactional(async (tx) => {
    const rows = await tx.execute<Array<{ wallet_address: string }>>(
      `update market_makers set removed_at = now()
        where lower(wallet_address) = lower(?) and removed_at is null
       returning wallet_address`,
      [walletAddress],
    );
    const row = rows[0];
    if (!row) throw new NotFound('NOT_FOUND', 'No registered market maker has this wallet address.');
    const revoked = await tx.execute<Array<{ id: string }>>(
      `update sessions set revoked_at = now()
        where kind = 'market_maker' and lower(market_maker_address) = lower(?) and revoked_at is null
       returning id`,
      [row.wallet_address],
    );
    return { walletAddress: row.wallet_address, revokedSessions: revoked.length };
  });
}

/**
 * Starts a market-maker session for a wallet whose signature was verified, if it is a registered,
 * not-removed market maker (null otherwise). The row lock (FOR SHARE) orders this against a removal.
 */
export async function createMarketMakerSession(em: Em, walletAddress: string, ttlMs: number): Promise<(IssuedSession & { walletAddress: string; expiresAtMs: number }) | null> {
  const { token, hash } = newSessionToken(MARKET_MAKER_TOKEN_PREFIX);
  const sessionId = randomUUID();
  return em.transactional(async (tx) => {
    const mm = await tx.execute<Array<{ wallet_address: string }>>(
      'select wallet_address from market_makers where lower(wallet_address) = lower(?) and removed_at is null for share',
      [walletAddress],
    );
    const address = mm[0]?.wallet_address;
    if (!address) return null;
    const rows = await tx.execute<Array<{ expires_ms: string | number }>>(
      `insert into sessions (id, token_hash, kind, market_maker_address, expires_at)
       values (?, ?, 'market_maker', ?, now() + make_interval(secs => ?::double precision / 1000))
       returning (extract(epoch from expires_at) * 1000)::bigint as expires_ms`,
      [sessionId, hash, address, ttlMs],
    );
    const expiresAtMs = Number(rows[0]!.expires_ms);
    return { sessionId, token, walletAddress: address, expiresAtMs, expiresAt: Math.floor(expiresAtMs / 1000) };
  });
}

/**
 * Of the given session ids, those that were revoked or whose market maker was removed (not those that
 * merely expired: the gateway times expiry itself). One query for all of a process's connections.
 */
export async function endedSessionIds(em: Em, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await em.execute<Array<{ id: string }>>(
    `select s.id from sessions s
       left join market_makers m on lower(m.wallet_address) = lower(s.market_maker_address)
      where s.id = any(?::uuid[])
        and (s.revoked_at is not null or m.wallet_address is null or m.removed_at is not null)`,
    [`{${sessionIds.join(',')}}`],
  );
  return new Set(rows.map((r) => r.id));
}

export interface TakerPnlFigures {
  walletAddress: string;
  realizedPnlMicros: string;
  tradeCount: number;
  asOfMs: number;
}

/** No RFQ fills are recorded yet (RFQ settlement does not exist), so the figures are zero. */
export function takerPnl(walletAddress: string, nowMs = Date.now()): TakerPnlFigures {
  return { walletAddress, realizedPnlMicros: '0', tradeCount: 0, asOfMs: nowMs };
}
