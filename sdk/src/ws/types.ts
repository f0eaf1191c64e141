// Types of the market-maker WebSocket client: close codes, session, events, options, the give-up error.
import type { LocalAccount } from 'viem';
import type { AuthExpiredMessage, AuthResultErrorCode, ServerMessage } from '../../../generated/asyncapi/types.ts';

/** Close codes of spec/asyncapi.yaml. */
export const CLOSE_CODES = { notAuthenticated: 4001, heartbeatMissed: 4002, sessionExpired: 4003, removed: 4004 } as const;

export type Message = { type: string };
/** The member of a message union with the given `type`. */
export type MessageOf<U extends Message, T extends U['type']> = Extract<U, { type: T }>;

export interface MarketMakerSession {
  token: string;
  /** Unix seconds. */
  expiresAt: number;
}

/** Why the client stopped for good: retrying cannot succeed until an operator acts. */
export class MarketMakerGoneError extends Error {
  override readonly name = 'MarketMakerGoneError';
  constructor(
    readonly code: 'removed' | 'unknown_market_maker',
    readonly wallet: string,
    message: string,
  ) {
    super(message);
  }
}

export interface MarketMakerClientOptions {
  url: string;
  account: LocalAccount;
  /** The deployment's 35-byte AUTH_DOMAIN (MM_AUTH_DOMAIN), when not the default. */
  authDomain?: string;
  /** Reconnect after a close (default true). */
  reconnect?: boolean;
  /** First reconnect delay; doubles per failed attempt up to maxBackoffMs (with jitter). Defaults 250 / 30000. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Answer pings (default true; tests turn it off to see the service give up). */
  answerPings?: boolean;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface MarketMakerClientEvents<In extends Message = ServerMessage> extends Record<string, unknown> {
  /** After each successful handshake. */
  session: MarketMakerSession;
  /** A failed handshake (`auth_result.error`). */
  auth_failed: AuthResultErrorCode | null;
  /** The service ended the session (AUTH_EXPIRED); the close and a reconnect follow. */
  expired: AuthExpiredMessage;
  /** Every message received. */
  frame: In;
  /** Each closed connection. */
  close: { code: number; reason: string };
  reconnecting: { delayMs: number; attempt: number };
  /** Stopped for good (removed, or not registered). */
  gave_up: MarketMakerGoneError;
}
