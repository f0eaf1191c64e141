// The environment schema of src/config/load.ts: every key, its default and its bounds, grouped by area (the
// price sources' keys in prices.ts). Reads no environment.
import { z } from 'zod';
import { PREPARED_STATEMENTS_DEFAULT } from '../constants.js';
import { csv, intFrom, isP256PublicKeyPem, optionalString } from './parse.js';
import { PRICE_KEYS } from './prices.js';
import { custodyKeys } from './schema-custody.js';
import { chainKeys } from './schema-chain.js';

export { PRICE_SOURCES } from './prices.js';

export const AUTH_DOMAIN_DEFAULT = 'contest-rfq-service market-maker v1';

const bool = (def: 'true' | 'false') =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(def)
    .transform((v) => v === 'true' || v === '1');

/** The process, its database, Redis and queues. */
const processKeys = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: intFrom(3000, 0, 65535),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  /** A direct (session) connection for the PostgreSQL bus's LISTEN and BullMQ's PostgreSQL backend, when DATABASE_URL goes through a transaction-mode pooler. */
  DATABASE_LISTEN_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  /** Connections of a process's ORM pool to PostgreSQL, at most (docs/configuration.md). */
  DATABASE_POOL_MAX: intFrom(10, 1, 1_000),
  /** At most this many distinct parameterised statements kept prepared per database connection (src/db/prepared.ts); 0: none. */
  DATABASE_PREPARED_STATEMENTS: intFrom(PREPARED_STATEMENTS_DEFAULT, 0, 10_000),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Prefix for BullMQ queue names, so several test runs or deployments can share one Redis. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/i, 'must be 1-32 of [A-Za-z0-9_-]')
    .default('crfq'),
};

/** Operator accounts, sessions and sign-in (Privy, SIWE). */
const signInKeys = {
  OPERATOR_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** A file of named operator accounts, `<name> <sha256 of the token>` per line (src/config/operator-tokens.ts); re-read while running. */
  OPERATOR_TOKENS_FILE: optionalString,
  /** How often OPERATOR_TOKENS_FILE is re-read: a changed file takes effect within this long, without a restart. */
  OPERATOR_TOKENS_RELOAD_MS: intFrom(5000, 100, 3_600_000),
  PRIVY_APP_ID: optionalString,
  PRIVY_VERIFICATION_KEY: optionalString
    // Env files often carry a PEM on one line with literal \n escapes.
    .transform((v) => v?.replace(/\\n/g, '\n'))
    .pipe(z.string().refine(isP256PublicKeyPem, 'must be an SPKI PEM P-256 (ES256) public key').optional()),
  /** User session lifetime; down to 1 s for tests and short-lived deployments. */
  SESSION_TTL_SECONDS: intFrom(86400, 1, 31 * 86400),
  /** How long one API process remembers a live session (logout and other changes reach every process at once over the bus); 0: look it up on every request. */
  SESSION_CACHE_MS: intFrom(1000, 0, 60000),
  /** EIP-4361 `domain` that wallet sign-in messages must name (host[:port] of the web app). */
  SIWE_DOMAIN: z
    .string()
    .trim()
    .regex(/^[a-zA-Z0-9.-]+(:[0-9]{1,5})?$/, 'must be an RFC 3986 authority, host[:port]')
    .optional(),
  /** EIP-155 chain ids accepted in wallet sign-in messages. */
  SIWE_CHAIN_IDS: csv(
    z
      .string()
      .regex(/^\d+$/, 'chain ids are positive integers')
      .transform(Number)
      .pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)),
    '1,8453,84532',
  ),
};

/** Connections: the market-maker gateway, the user channel and the HTTP server's TCP caps. */
const connectionKeys = {
  MM_AUTH_DOMAIN: z
    .string()
    .default(AUTH_DOMAIN_DEFAULT)
    .refine((s) => /^[\x20-\x7e]*$/.test(s) && Buffer.byteLength(s, 'ascii') === 35, 'must be exactly 35 printable ASCII bytes'),
  MM_CHALLENGE_TTL_MS: intFrom(30000, 100),
  MM_AUTH_TIMEOUT_MS: intFrom(10000, 100),
  MM_HEARTBEAT_INTERVAL_MS: intFrom(15000, 50),
  MM_MAX_MISSED_PONGS: intFrom(3, 1, 100),
  MM_SESSION_TTL_MS: intFrom(3600000, 1000),
  /** Open market-maker WebSocket connections one client IP may hold across every API process; more get HTTP 429. */
  MM_MAX_CONNECTIONS_PER_IP: intFrom(20, 1, 100000),
  /** Of those, connections not yet authenticated (they have MM_AUTH_TIMEOUT_MS to do it); more get HTTP 429. At most MM_MAX_CONNECTIONS_PER_IP. */
  MM_MAX_UNAUTHENTICATED_PER_IP: intFrom(4, 1, 100000),
  /** Frames per second one connection may keep up (the refill rate of its frame bucket); past the bucket: close 1008. */
  MM_MAX_FRAMES_PER_SECOND: intFrom(200, 1, 100000),
  /** Frames one connection may send at once (the size of its frame bucket, at least MM_MAX_FRAMES_PER_SECOND): a burst of quotes answering a burst of RFQs. */
  MM_MAX_FRAME_BURST: intFrom(1000, 1, 1_000_000),
  /** Frames one connection may have waiting while an earlier one is handled; more are answered rate_limited at once (the connection stays). */
  MM_MAX_QUEUED_FRAMES: intFrom(128, 1, 100000),
  /** Frames a connection may send before it authenticates (pongs that answer a ping are free); the next: close 1008. */
  MM_MAX_UNAUTHENTICATED_FRAMES: intFrom(24, 2, 100000),
  /** User-channel WebSocket connections (auth with a user session_token) one user may hold across every API process; one more: auth_result too_many_connections, close 1008. */
  USER_WS_MAX_PER_USER: intFrom(5, 1, 1000),
  /** How long the user channel's event log keeps an event (the prune job deletes older ones); a client further behind gets resync_required. */
  USER_EVENTS_RETENTION_MS: intFrom(604_800_000, 60_000),
  /** Open TCP connections (HTTP and WebSocket) per client address; more are closed at once. 0: no cap. */
  HTTP_MAX_CONNECTIONS_PER_IP: intFrom(256, 0, 10_000_000),
  /** Open TCP connections in total; at either cap idle connections are shed first. 0: no cap. */
  HTTP_MAX_CONNECTIONS: intFrom(8192, 0, 10_000_000),
};

/** Market windows: the assets and durations offered, betting close and look-up horizon. */
const marketKeys = {
  MARKET_ASSETS: csv(z.string().regex(/^[A-Z0-9]{1,16}$/, 'assets are 1-16 of [A-Z0-9]'), 'BTC,ETH,SOL,XRP'),
  MARKET_DURATIONS: csv(
    z
      .string()
      .regex(/^\d+$/, 'durations are whole seconds')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1)
          .max(7 * 86400),
      ),
    '60,300,900,3600,14400,86400',
  ),
  MARKET_BETTING_CLOSE_BUFFER_MS: intFrom(10000, 0),
  MARKET_LOOKUP_HORIZON_MS: intFrom(7 * 86400 * 1000, 0),
};

/** Settlement and custody (docs/settlement.md); the onchain keys in schema-chain.ts, custody's in schema-custody.ts. */
const settlementKeys = {
  DEPOSIT_SYNC_WAIT_MS: intFrom(5000, 0, 60000),
  /** demo: no chain, made-up hashes (the development default); onchain: USDC on an EVM chain (docs/settlement.md). */
  SETTLEMENT_MODE: z.enum(['demo', 'onchain']).default('demo'),
  /** NODE_ENV=production refuses SETTLEMENT_MODE=demo unless this is true (a staging deployment on play money). */
  ALLOW_DEMO_SETTLEMENT: bool('false'),
  ...chainKeys,
  ...custodyKeys,
  /** Demo settlement: each user's finite onchain balance; deposits beyond what is left fail (SETTLEMENT_FAILED). */
  DEMO_ONCHAIN_BALANCE_MICROS: intFrom(1_000_000_000_000, 0),
};

/** RFQ trading (docs/configuration.md). */
const rfqKeys = {
  RFQ_QUOTE_WINDOW_MS: intFrom(500, 10, 60_000),
  RFQ_MAX_DEADLINE_MS: intFrom(60_000, 1000, 15 * 60_000),
  RFQ_SWEEP_EVERY_MS: intFrom(1000, 100, 60_000),
  // A stake of at least 10,000 micros at the lowest odds (10001 bps) keeps the maker's liability >= 1 micro.
  RFQ_MIN_STAKE_MICROS: intFrom(500_000, 10_000),
  RFQ_MAX_STAKE_MICROS: intFrom(10_000_000_000, 10_000),
  RFQ_MAX_PAYOUT_MICROS: intFrom(50_000_000_000, 10_001),
  RFQ_MAX_LEGS: intFrom(9, 1, 9),
  RFQ_MAX_OPEN_PER_USER: intFrom(10, 1, 10_000),
  /** Long-polls (GET /v1/rfq/{rfq_id}?wait_ms) one API process holds at once; past it they answer at once. */
  RFQ_MAX_WAITERS: intFrom(1000, 1, 1_000_000),
  /** Long-polls one user may hold at once on one API process; past it 503 TOO_MANY_WAITERS (fair shares). At most RFQ_MAX_WAITERS. */
  RFQ_MAX_WAITERS_PER_USER: intFrom(100, 1, 1_000_000),
  /** POST /v1/rfq requests one API process holds at once; past it 503 OVERLOADED (src/http/admission.ts). 0 admits none. */
  RFQ_ADMISSION_MAX_IN_FLIGHT: intFrom(256, 0, 1_000_000),
  /** p90 event-loop delay (ms, last second) past which POST /v1/rfq answers 503 OVERLOADED; unset: RFQ_QUOTE_WINDOW_MS / 5; 0: off. */
  RFQ_ADMISSION_MAX_LOOP_DELAY_MS: intFrom(-1, 0, 60_000),
  /** Median time (ms, last second) from the handler's start (after authentication and validation) to an RFQ's reserve committed above which the adaptive in-flight limit narrows (503 OVERLOADED); unset: RFQ_QUOTE_WINDOW_MS / 5; 0: off. */
  RFQ_ADMISSION_MAX_CREATE_MS: intFrom(-1, 0, 60_000),
  /** EIP-712 domain of RFQ orders and quotes; must be one of SIWE_CHAIN_IDS. */
  RFQ_SIGNING_CHAIN_ID: intFrom(8453, 1),
  RFQ_EIP712_NAME: z
    .string()
    .trim()
    .regex(/^[\x20-\x7e]{1,64}$/, 'must be 1-64 printable ASCII characters')
    .default('contest-rfq-service'),
  /**
   * EIP-712 domain salt of RFQ orders and quotes (0x + 32 bytes of hex): an order signed for one deployment
   * is refused by every other. Required in production; elsewhere RFQ_EIP712_SALT_DEV.
   */
  RFQ_EIP712_SALT: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x + 64 hex digits (32 bytes)')
      .transform((v) => v.toLowerCase() as `0x${string}`)
      .optional(),
  ),
  /** The least stake one maker may fill (no dust fills); quotes with a smaller max_fill_micros are refused. At most RFQ_MIN_STAKE_MICROS. */
  RFQ_MIN_FILL_MICROS: intFrom(10_000, 1),
  MM_MAX_QUOTES_PER_SECOND: intFrom(100, 1, 100_000),
};

/** Window resolution and disputes. */
const resolutionKeys = {
  /** A DISPUTED window nobody resolved voids (refunds) this long after it was disputed; 0: at once. */
  DISPUTE_VOID_AFTER_MS: intFrom(86_400_000, 0, 30 * 86_400_000),
  RESOLUTION_DELAY_MS: intFrom(2000, 0, 3_600_000),
  RESOLUTION_MAX_WAIT_MS: intFrom(3_600_000, 1000, 7 * 86_400_000),
};

/** The running service: failpoints, health, the public URL, metrics, docs, demo data, migrations, proxies and CORS. */
const serviceKeys = {
  /** Fault injection for tests and drills (src/failpoints.ts); refused in production. */
  FAILPOINTS: optionalString,
  /** /readyz reports the workers `stale` when the newest worker heartbeat is older than this. */
  WORKER_HEARTBEAT_STALE_MS: intFrom(30000, 1000),
  /** Longest wait for the queue (Redis) before a request that needs it answers 503 with Retry-After. */
  QUEUE_WAIT_MS: intFrom(3000, 100, 60000),
  /** Base URL partners reach this instance at (https://api.example.com); written into the served documents. */
  PUBLIC_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional()),
  /** /metrics (treasury figures, gas, queue depths) answers only `Authorization: Bearer <METRICS_TOKEN>`; unset: anyone who reaches it. */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Serve /metrics on this internal port (0: a free one, logged) instead of PORT; unset: on PORT. */
  METRICS_PORT: optionalString.pipe(
    z.string().trim().regex(/^\d+$/, 'must be a port number').transform(Number).pipe(z.number().int().min(0).max(65535)).optional(),
  ),
  /** Serve the docs portal (/docs, /docs/ws). The documents (/openapi.json, ...) are always served. */
  DOCS_ENABLED: bool('true'),
  /** Seed demo contests on the embedded development default (never elsewhere): `false` starts empty. */
  DEMO_DATA: bool('true'),
  /** Apply pending database migrations at start (default: yes, except NODE_ENV=production, where `node dist/src/migrate.js` is its own step). */
  MIGRATE_ON_START: z.enum(['true', 'false', '1', '0']).optional(),
  /** Reverse proxies trusted to tell the client address in X-Forwarded-For: off (default), a hop count, or addresses/CIDRs. */
  TRUST_PROXY: optionalString,
  /** Origins allowed by CORS: unset = any outside production and none in production; `*`; a comma list; `none`. */
  CORS_ORIGINS: optionalString,
};

export const schema = z.object({
  ...processKeys,
  ...signInKeys,
  ...connectionKeys,
  ...marketKeys,
  ...settlementKeys,
  // The key order is the order problems are listed in: these two stand where they always have.
  SHUTDOWN_TIMEOUT_MS: intFrom(10000, 100),
  RATE_LIMIT_PER_MINUTE: intFrom(1200, 0),
  ...rfqKeys,
  ...resolutionKeys,
  ...serviceKeys,
  /** The price sources' keys (src/config/prices.ts). */
  ...PRICE_KEYS,
});

export type Parsed = z.infer<typeof schema>;
