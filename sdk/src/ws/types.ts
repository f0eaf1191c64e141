// Types of the market-maker WebSocket client: close codes, session, events, options, the give-up error.
import type { LocalAccount } from 'viem';
import type {
  AuthExpiredMessage,
  AuthResultErrorCode,
  PositionSettledMessage,
  QuoteAckMessage,
  QuoteResultMessage,
  RfqClosedMessage,
  RfqMessage,
  ServerMessage,
  SubscribedMessage,
} from '../../../generated/asyncapi/types.ts';
import type { RfqSigningDomain } from '../maker.ts';

/** Close codes of spec/asyncapi.yaml. */
export const CLOSE_CODES = {
  notAuthenticated: 4001,
  heartbeatMissed: 4002,
  sessionExpired: 4003,
  removed: 4004,
  sessionRevoked: 4005,
} as const;

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

  /** The operator removed the wallet (close 4004): reconnecting cannot succeed. */
  static removed(wallet: string, code: number, reason: string): MarketMakerGoneError {
    return new MarketMakerGoneError(
      'removed',
      wallet,
      `the operator removed market maker ${wallet} (close ${code}: ${reason || 'market maker removed'}); ` +
        'reconnecting cannot succeed: ask the operator to register the wallet again (POST /v1/admin/market-makers)',
    );
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
  /** EIP-712 domain that quotes are signed with: `domain` of GET /v1/rfq/typed-data (default DEFAULT_RFQ_DOMAIN). */
  rfqDomain?: RfqSigningDomain;
  /** How long subscribe(), quote() and cancelQuote() wait for their answer (default 10000 ms). */
  requestTimeoutMs?: number;
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
  /** RFQ trading (after subscribe()): the effective filters, each new RFQ, quote acks, quote outcomes, closes, settlements. */
  subscribed: SubscribedMessage;
  rfq: RfqMessage;
  quote_ack: QuoteAckMessage;
  quote_result: QuoteResultMessage;
  rfq_closed: RfqClosedMessage;
  position_settled: PositionSettledMessage;
}

/** The filters of `subscribe` (omitted = every asset / duration the deployment offers). */
export interface SubscribeFilters {
  assets?: string[];
  durations?: number[];
  /** Cancel every live quote of the wallet when this connection closes and the wallet has no other connection on that service process. */
  cancel_on_disconnect?: boolean;
}

/** Market-maker protection (`mmp_set`): give max_fills, max_liability_micros or both. */
export interface MmpLimits {
  interval_ms: number;
  max_fills?: number;
  max_liability_micros?: number;
}

/** A quote as the maker states it; the client adds `maker` (its account) and the signature. */
export interface QuoteRequest {
  rfq_id: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
  /** Your own UUID, unique per wallet: a retry with the same id and content gets the same ack. */
  client_quote_id?: string;
}

/** The service refused a request with an `error` message (not_authenticated, rate_limited, malformed_message...). */
export class MarketMakerRequestError extends Error {
  override readonly name = 'MarketMakerRequestError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The options once defaulted (every one but `log`). */
export type ResolvedClientOptions = Required<Omit<MarketMakerClientOptions, 'log'>> & Pick<MarketMakerClientOptions, 'log'>;

/** The frames the client also emits as events of their own type (`on('rfq', …)`). */
export const RFQ_EVENTS: ReadonlySet<string> = new Set([
  'subscribed',
  'rfq',
  'quote_ack',
  'quote_result',
  'rfq_closed',
  'position_settled',
]);
