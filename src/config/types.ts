// The frozen configuration's shape, as loadConfig (src/config/load.ts) returns it. Each group's own settings
// type stands with the part that builds it (chain.ts, custody.ts, prices.ts).
import type { FailpointAction } from '../failpoints.js';
import type { ChainSettings } from './chain.js';
import type { CustodySettings } from './custody.js';
import type { OperatorTokenLine } from './operator-tokens.js';
import type { TrustProxy } from './parse.js';
import type { PriceSettings } from './prices.js';
import type { Parsed } from './schema.js';

export interface Config {
  nodeEnv: Parsed['NODE_ENV'];
  host: string;
  port: number;
  /** The port of a workers process's probes (/healthz, /readyz, /metrics): PORT when set, else 0 (a free port, logged). */
  probePort: number;
  logLevel: Parsed['LOG_LEVEL'];
  databaseUrl: string | undefined;
  /** DATABASE_LISTEN_URL: the session connection of the PostgreSQL bus's LISTEN (src/bus/pg.ts) and queue backend (src/runtime.ts); undefined: DATABASE_URL. */
  databaseListenUrl: string | undefined;
  /** DATABASE_PREPARED_STATEMENTS: named statements per connection (PostgreSQL only; 0: none). */
  databasePreparedStatements: number;
  /** DATABASE_POOL_MAX: connections of the process's ORM pool to PostgreSQL, at most. */
  databasePoolMax: number;
  redisUrl: string | undefined;
  dataDir: string;
  queuePrefix: string;
  /** embedded: PGlite for data and queues; postgres: PostgreSQL for both; production: PostgreSQL + Redis. */
  deployment: 'embedded' | 'postgres' | 'production';
  /** OPERATOR_TOKEN: the operator account named `default`. */
  operatorToken: string | undefined;
  /** OPERATOR_TOKENS_FILE as read at start-up; the service re-reads it every `reloadMs`. */
  operatorTokens: { file: string; accounts: OperatorTokenLine[]; reloadMs: number } | undefined;
  privy: { appId: string | undefined; verificationKey: string | undefined };
  sessionTtlSeconds: number;
  /** SESSION_CACHE_MS: how long a process remembers a live session (src/http/session-cache.ts); 0: never. */
  sessionCacheMs: number;
  siwe: { domain: string; chainIds: number[] };
  mm: {
    authDomain: string;
    challengeTtlMs: number;
    authTimeoutMs: number;
    heartbeatIntervalMs: number;
    maxMissedPongs: number;
    sessionTtlMs: number;
    maxConnectionsPerIp: number;
    maxUnauthenticatedPerIp: number;
    maxFramesPerSecond: number;
    frameBurst: number;
    maxQueuedFrames: number;
    maxUnauthenticatedFrames: number;
  };
  /** The user channel (spec/asyncapi.yaml "User channel"; src/ws/user-stream.ts). */
  userChannel: { maxPerUser: number; retentionMs: number };
  /** TCP connection caps of the HTTP server (src/http/connection-limits.ts); 0: no cap. */
  connections: { maxPerIp: number; maxTotal: number };
  markets: { assets: string[]; durations: number[]; bettingCloseBufferMs: number; lookupHorizonMs: number };
  depositSyncWaitMs: number;
  settlementMode: Parsed['SETTLEMENT_MODE'];
  /** SETTLEMENT_MODE=onchain: the chain, the token, the settlement wallet (src/config/chain.ts); demo: undefined. */
  chain: ChainSettings | undefined;
  demoOnchainBalanceMicros: bigint;
  /** Withdrawal amounts, fee, limits, review and destination rules; the least pull deposit (src/config/custody.ts). */
  custody: CustodySettings;
  shutdownTimeoutMs: number;
  rateLimitPerMinute: number;
  /** FAILPOINTS: name -> action; always empty in production. */
  failpoints: Record<string, FailpointAction>;
  rfq: {
    quoteWindowMs: number;
    maxDeadlineMs: number;
    sweepEveryMs: number;
    minStakeMicros: bigint;
    maxStakeMicros: bigint;
    maxPayoutMicros: bigint;
    maxLegs: number;
    maxOpenPerUser: number;
    /** Long-polls held at once by this process, and by one user on it (src/trading/rfq-wait.ts). */
    maxWaiters: number;
    maxWaitersPerUser: number;
    /** Admission control of POST /v1/rfq on this process (src/http/admission.ts). */
    admission: { maxInFlight: number; maxLoopDelayMs: number; maxCreateMs: number };
    signingChainId: number;
    eip712Name: string;
    /** RFQ_EIP712_SALT (RFQ_EIP712_SALT_DEV outside production). */
    eip712Salt: `0x${string}`;
    minFillMicros: bigint;
    /** Per market-maker connection (token bucket). */
    mmMaxQuotesPerSecond: number;
  };
  /** Price sources of window resolution (src/config/prices.ts, src/domain/prices, docs/prices.md). */
  prices: PriceSettings;
  /** CHAIN_RPC_URL: the chain's JSON-RPC endpoint (Chainlink feeds; settlement). */
  chainRpcUrl: string | undefined;
  resolution: { delayMs: number; maxWaitMs: number; disputeVoidAfterMs: number; overdueAfterMs: number };
  workerHeartbeatStaleMs: number;
  queueWaitMs: number;
  /** PUBLIC_URL without a trailing slash. */
  publicUrl: string | undefined;
  docsEnabled: boolean;
  /** METRICS_TOKEN: /metrics needs it as a bearer token; undefined: open (keep it off the public network). */
  metricsToken: string | undefined;
  /** METRICS_PORT: /metrics on this internal port only (src/http/probes.ts startMetricsServer); undefined: on PORT. */
  metricsPort: number | undefined;
  /** DEMO_DATA: seed demo contests (applies on the embedded development default only). */
  demoData: boolean;
  /** Origins allowed by CORS (`*`: any; empty: CORS off). */
  corsOrigins: '*' | string[];
  /** MIGRATE_ON_START: apply pending migrations at start; when false, refuse to start while any is pending. */
  migrateOnStart: boolean;
  /** TRUST_PROXY: which peers may tell the client address in X-Forwarded-For (src/http/client-address.ts). */
  trustProxy: TrustProxy;
}
