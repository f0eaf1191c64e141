// The only module that reads process.env: parse once, report every bad key at once, freeze.
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { DEMO_BASES_MICROS, DEMO_PRICE_SEED_DEFAULT, DEMO_PRICE_SPREAD_BPS_DEFAULT, PROCESSING_BUFFER_MS } from './constants.js';
import { parseFailpoints, type FailpointAction } from './failpoints.js';

const intFrom = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? def);

const csv = <T extends z.ZodType<unknown, string>>(item: T, def: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? def)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1, 'must list at least one value'));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

export const AUTH_DOMAIN_DEFAULT = 'contest-rfq-service market-maker v1';

const schema = z.object({
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
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Prefix for BullMQ queue names, so several test runs or deployments can share one Redis. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/i, 'must be 1-32 of [A-Za-z0-9_-]')
    .default('crfq'),
  OPERATOR_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  PRIVY_APP_ID: optionalString,
  PRIVY_VERIFICATION_KEY: optionalString
    // Env files often carry a PEM on one line with literal \n escapes.
    .transform((v) => v?.replace(/\\n/g, '\n'))
    .pipe(z.string().refine(isP256PublicKeyPem, 'must be an SPKI PEM P-256 (ES256) public key').optional()),
  /** User session lifetime; down to 1 s for tests and short-lived deployments. */
  SESSION_TTL_SECONDS: intFrom(86400, 1, 31 * 86400),
  /** EIP-4361 `domain` that wallet sign-in messages must name (host[:port] of the web app). */
  SIWE_DOMAIN: z
    .string()
    .trim()
    .regex(/^[a-zA-Z0-9.-]+(:[0-9]{1,5})?$/, 'must be an RFC 3986 authority, host[:port]')
    .optional(),
  /** EIP-155 chain ids accepted in wallet sign-in messages. */
  SIWE_CHAIN_IDS: csv(
    z.string().regex(/^\d+$/, 'chain ids are positive integers').transform(Number).pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)),
    '1,8453,84532',
  ),
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
  /** Frames per second one connection may send (a bucket of this many, refilled at this rate); past it: close 1008. */
  MM_MAX_FRAMES_PER_SECOND: intFrom(50, 1, 100000),
  /** Frames one connection may have waiting while an earlier one is handled; past it: close 1008. */
  MM_MAX_QUEUED_FRAMES: intFrom(32, 1, 100000),
  /** Frames a connection may send before it authenticates (pongs that answer a ping are free); the next: close 1008. */
  MM_MAX_UNAUTHENTICATED_FRAMES: intFrom(24, 2, 100000),
  /** Open TCP connections (HTTP and WebSocket) per client address; more are closed at once. 0: no cap. */
  HTTP_MAX_CONNECTIONS_PER_IP: intFrom(256, 0, 10_000_000),
  /** Open TCP connections in total; at either cap idle connections are shed first. 0: no cap. */
  HTTP_MAX_CONNECTIONS: intFrom(8192, 0, 10_000_000),
  MARKET_ASSETS: csv(z.string().regex(/^[A-Z0-9]{1,16}$/, 'assets are 1-16 of [A-Z0-9]'), 'BTC,ETH,SOL,XRP,HYPE'),
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
  DEPOSIT_SYNC_WAIT_MS: intFrom(5000, 0, 60000),
  SETTLEMENT_MODE: z.enum(['demo']).default('demo'),
  /** Demo settlement: each user's finite onchain balance; deposits beyond what is left fail (SETTLEMENT_FAILED). */
  DEMO_ONCHAIN_BALANCE_MICROS: intFrom(1_000_000_000_000, 0),
  SHUTDOWN_TIMEOUT_MS: intFrom(10000, 100),
  RATE_LIMIT_PER_MINUTE: intFrom(1200, 0),
  // RFQ trading (rfq-design 3.14)
  RFQ_QUOTE_WINDOW_MS: intFrom(500, 10, 60_000),
  RFQ_MAX_DEADLINE_MS: intFrom(60_000, 1000, 15 * 60_000),
  RFQ_SWEEP_EVERY_MS: intFrom(1000, 100, 60_000),
  // A stake of at least 10,000 micros at the lowest odds (10001 bps) keeps the maker's liability >= 1 micro.
  RFQ_MIN_STAKE_MICROS: intFrom(500_000, 10_000),
  RFQ_MAX_STAKE_MICROS: intFrom(10_000_000_000, 10_000),
  RFQ_MAX_PAYOUT_MICROS: intFrom(50_000_000_000, 10_001),
  RFQ_MAX_LEGS: intFrom(9, 1, 9),
  RFQ_MAX_OPEN_PER_USER: intFrom(10, 1, 10_000),
  /** EIP-712 domain of RFQ orders and quotes; must be one of SIWE_CHAIN_IDS. */
  RFQ_SIGNING_CHAIN_ID: intFrom(8453, 1),
  RFQ_EIP712_NAME: z
    .string()
    .trim()
    .regex(/^[\x20-\x7e]{1,64}$/, 'must be 1-64 printable ASCII characters')
    .default('contest-rfq-service'),
  MM_MAX_QUOTES_PER_SECOND: intFrom(100, 1, 100_000),
  PRICE_FEED: z.enum(['demo']).default('demo'),
  DEMO_PRICE_SEED: z.string().min(1).max(128).default(DEMO_PRICE_SEED_DEFAULT),
  DEMO_PRICE_SPREAD_BPS: intFrom(DEMO_PRICE_SPREAD_BPS_DEFAULT, 0, 9999),
  RESOLUTION_DELAY_MS: intFrom(2000, 0, 3_600_000),
  RESOLUTION_MAX_WAIT_MS: intFrom(3_600_000, 1000, 7 * 86_400_000),
  /** Fault injection for tests and drills (src/failpoints.ts); refused in production. */
  FAILPOINTS: optionalString,
  /** /readyz reports the workers `stale` when the newest worker heartbeat is older than this. */
  WORKER_HEARTBEAT_STALE_MS: intFrom(30000, 1000),
  /** Longest wait for the queue (Redis) before a request that needs it answers 503 with Retry-After. */
  QUEUE_WAIT_MS: intFrom(3000, 100, 60000),
  /** Base URL partners reach this instance at (https://api.example.com); written into the served documents. */
  PUBLIC_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional()),
  /** Serve the docs portal (/docs, /docs/ws). The documents (/openapi.json, ...) are always served. */
  DOCS_ENABLED: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** Origins allowed by CORS: unset = any outside production and none in production; `*`; a comma list; `none`. */
  CORS_ORIGINS: optionalString,
});

type Parsed = z.infer<typeof schema>;

export interface Config {
  nodeEnv: Parsed['NODE_ENV'];
  host: string;
  port: number;
  logLevel: Parsed['LOG_LEVEL'];
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  dataDir: string;
  queuePrefix: string;
  /** embedded: PGlite for data and queues; postgres: PostgreSQL for both; production: PostgreSQL + Redis. */
  deployment: 'embedded' | 'postgres' | 'production';
  operatorToken: string | undefined;
  privy: { appId: string | undefined; verificationKey: string | undefined };
  sessionTtlSeconds: number;
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
    maxQueuedFrames: number;
    maxUnauthenticatedFrames: number;
  };
  /** TCP connection caps of the HTTP server (src/http/connection-limits.ts); 0: no cap. */
  connections: { maxPerIp: number; maxTotal: number };
  markets: { assets: string[]; durations: number[]; bettingCloseBufferMs: number; lookupHorizonMs: number };
  depositSyncWaitMs: number;
  settlementMode: Parsed['SETTLEMENT_MODE'];
  demoOnchainBalanceMicros: bigint;
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
    signingChainId: number;
    eip712Name: string;
    /** Per market-maker connection (token bucket). */
    mmMaxQuotesPerSecond: number;
  };
  prices: { feed: Parsed['PRICE_FEED']; demoSeed: string; demoSpreadBps: number };
  resolution: { delayMs: number; maxWaitMs: number };
  workerHeartbeatStaleMs: number;
  queueWaitMs: number;
  /** PUBLIC_URL without a trailing slash. */
  publicUrl: string | undefined;
  docsEnabled: boolean;
  /** Origins allowed by CORS (`*`: any; empty: CORS off). */
  corsOrigins: '*' | string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = result.data;
  const problems: string[] = [];
  if (e.NODE_ENV === 'production') {
    if (!e.DATABASE_URL) problems.push('DATABASE_URL: required when NODE_ENV=production (embedded PGlite is single-process)');
    if (!e.OPERATOR_TOKEN) problems.push('OPERATOR_TOKEN: required when NODE_ENV=production');
    if (!e.PRIVY_APP_ID || !e.PRIVY_VERIFICATION_KEY) {
      problems.push(
        'PRIVY_APP_ID / PRIVY_VERIFICATION_KEY: required when NODE_ENV=production (the development identity key is never used in production)',
      );
    }
  }
  if ((e.PRIVY_APP_ID === undefined) !== (e.PRIVY_VERIFICATION_KEY === undefined)) {
    problems.push('PRIVY_APP_ID / PRIVY_VERIFICATION_KEY: set both or neither');
  }
  if (e.REDIS_URL && !e.DATABASE_URL) {
    problems.push('REDIS_URL: requires DATABASE_URL (embedded PGlite serves one process; Redis implies several)');
  }
  const cors = parseCorsOrigins(e.CORS_ORIGINS, e.NODE_ENV);
  if (typeof cors === 'string' && cors !== '*') problems.push(`CORS_ORIGINS: ${cors}`);
  const buffer = bufferProblem(e.MARKET_DURATIONS, e.MARKET_BETTING_CLOSE_BUFFER_MS);
  if (buffer) problems.push(`MARKET_BETTING_CLOSE_BUFFER_MS: ${buffer}`);
  problems.push(...rfqProblems(e));
  const failpoints = parseFailpoints(e.FAILPOINTS ?? '');
  for (const p of failpoints.problems) problems.push(`FAILPOINTS: ${p}`);
  if (e.FAILPOINTS && e.NODE_ENV === 'production') problems.push('FAILPOINTS: fault injection is refused when NODE_ENV=production');
  if (problems.length) throw new ConfigError(problems);
  const config: Config = {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    dataDir: e.DATA_DIR,
    queuePrefix: e.QUEUE_PREFIX,
    deployment: e.REDIS_URL ? 'production' : e.DATABASE_URL ? 'postgres' : 'embedded',
    operatorToken: e.OPERATOR_TOKEN,
    privy: { appId: e.PRIVY_APP_ID, verificationKey: e.PRIVY_VERIFICATION_KEY },
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    siwe: { domain: (e.SIWE_DOMAIN ?? defaultSiweDomain(e.PUBLIC_URL, e.PORT)).toLowerCase(), chainIds: e.SIWE_CHAIN_IDS },
    mm: {
      authDomain: e.MM_AUTH_DOMAIN,
      challengeTtlMs: e.MM_CHALLENGE_TTL_MS,
      authTimeoutMs: e.MM_AUTH_TIMEOUT_MS,
      heartbeatIntervalMs: e.MM_HEARTBEAT_INTERVAL_MS,
      maxMissedPongs: e.MM_MAX_MISSED_PONGS,
      sessionTtlMs: e.MM_SESSION_TTL_MS,
      maxConnectionsPerIp: e.MM_MAX_CONNECTIONS_PER_IP,
      maxUnauthenticatedPerIp: Math.min(e.MM_MAX_UNAUTHENTICATED_PER_IP, e.MM_MAX_CONNECTIONS_PER_IP),
      maxFramesPerSecond: e.MM_MAX_FRAMES_PER_SECOND,
      maxQueuedFrames: e.MM_MAX_QUEUED_FRAMES,
      maxUnauthenticatedFrames: e.MM_MAX_UNAUTHENTICATED_FRAMES,
    },
    connections: { maxPerIp: e.HTTP_MAX_CONNECTIONS_PER_IP, maxTotal: e.HTTP_MAX_CONNECTIONS },
    markets: {
      assets: e.MARKET_ASSETS,
      durations: e.MARKET_DURATIONS,
      bettingCloseBufferMs: e.MARKET_BETTING_CLOSE_BUFFER_MS,
      lookupHorizonMs: e.MARKET_LOOKUP_HORIZON_MS,
    },
    depositSyncWaitMs: e.DEPOSIT_SYNC_WAIT_MS,
    settlementMode: e.SETTLEMENT_MODE,
    demoOnchainBalanceMicros: BigInt(e.DEMO_ONCHAIN_BALANCE_MICROS),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    failpoints: failpoints.points,
    rfq: {
      quoteWindowMs: e.RFQ_QUOTE_WINDOW_MS,
      maxDeadlineMs: e.RFQ_MAX_DEADLINE_MS,
      sweepEveryMs: e.RFQ_SWEEP_EVERY_MS,
      minStakeMicros: BigInt(e.RFQ_MIN_STAKE_MICROS),
      maxStakeMicros: BigInt(e.RFQ_MAX_STAKE_MICROS),
      maxPayoutMicros: BigInt(e.RFQ_MAX_PAYOUT_MICROS),
      maxLegs: e.RFQ_MAX_LEGS,
      maxOpenPerUser: e.RFQ_MAX_OPEN_PER_USER,
      signingChainId: e.RFQ_SIGNING_CHAIN_ID,
      eip712Name: e.RFQ_EIP712_NAME,
      mmMaxQuotesPerSecond: e.MM_MAX_QUOTES_PER_SECOND,
    },
    prices: { feed: e.PRICE_FEED, demoSeed: e.DEMO_PRICE_SEED, demoSpreadBps: e.DEMO_PRICE_SPREAD_BPS },
    resolution: { delayMs: e.RESOLUTION_DELAY_MS, maxWaitMs: e.RESOLUTION_MAX_WAIT_MS },
    workerHeartbeatStaleMs: e.WORKER_HEARTBEAT_STALE_MS,
    queueWaitMs: e.QUEUE_WAIT_MS,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    docsEnabled: e.DOCS_ENABLED,
    corsOrigins: cors as '*' | string[],
  };
  return deepFreeze(config);
}

/** For scripts that must refuse to run in production before anything else is checked. */
export function isProductionEnv(env: Record<string, string | undefined> = process.env): boolean {
  return env.NODE_ENV === 'production';
}

/** Cross-field rules of the RFQ settings (rfq-design 3.14). */
/** Null when the buffer leaves every market window some open betting time (the rule windows.ts asserts per window). */
function bufferProblem(durations: readonly number[], bufferMs: number): string | null {
  const tooShort = durations.filter((d) => bufferMs >= d * 1000);
  if (!tooShort.length) return null;
  return `must be less than the shortest MARKET_DURATIONS window (${Math.min(...durations) * 1000} ms); ${bufferMs} ms leaves no betting time in the ${tooShort.join(', ')} s windows`;
}

function rfqProblems(e: Parsed): string[] {
  const problems: string[] = [];
  if (!e.SIWE_CHAIN_IDS.includes(e.RFQ_SIGNING_CHAIN_ID)) {
    problems.push(`RFQ_SIGNING_CHAIN_ID: must be one of SIWE_CHAIN_IDS (${e.SIWE_CHAIN_IDS.join(',')}): the wallet that signs in signs the orders`);
  }
  if (e.RFQ_QUOTE_WINDOW_MS >= e.RFQ_MAX_DEADLINE_MS - PROCESSING_BUFFER_MS) {
    problems.push(
      `RFQ_QUOTE_WINDOW_MS: must be less than RFQ_MAX_DEADLINE_MS - ${PROCESSING_BUFFER_MS} (${e.RFQ_MAX_DEADLINE_MS - PROCESSING_BUFFER_MS} ms), or no best-mode deadline is acceptable`,
    );
  }
  if (e.RFQ_MIN_STAKE_MICROS > e.RFQ_MAX_STAKE_MICROS) problems.push('RFQ_MIN_STAKE_MICROS: must not exceed RFQ_MAX_STAKE_MICROS');
  const smallestPayout = (BigInt(e.RFQ_MIN_STAKE_MICROS) * 10_001n) / 10_000n;
  if (BigInt(e.RFQ_MAX_PAYOUT_MICROS) < smallestPayout) {
    problems.push(`RFQ_MAX_PAYOUT_MICROS: must be at least ${smallestPayout} (the minimum stake at the lowest odds), or no order is acceptable`);
  }
  if (e.PRICE_FEED === 'demo') {
    const unpriced = e.MARKET_ASSETS.filter((a) => DEMO_BASES_MICROS[a] === undefined);
    if (unpriced.length)
      problems.push(
        `MARKET_ASSETS: the demo price feed has no price for ${unpriced.join(', ')} (it prices ${Object.keys(DEMO_BASES_MICROS).join(', ')})`,
      );
  }
  if (e.RESOLUTION_MAX_WAIT_MS <= e.RESOLUTION_DELAY_MS) problems.push('RESOLUTION_MAX_WAIT_MS: must be greater than RESOLUTION_DELAY_MS');
  return problems;
}

/** The web app's authority when SIWE_DOMAIN is unset: PUBLIC_URL's host, else localhost on PORT (3000 for PORT=0). */
function defaultSiweDomain(publicUrl: string | undefined, port: number): string {
  if (publicUrl) return new URL(publicUrl).host;
  return `localhost:${port === 0 ? 3000 : port}`;
}

/** `*`, a list of lower-cased origins, or a problem (a string other than `*`). */
function parseCorsOrigins(value: string | undefined, nodeEnv: string): '*' | string[] | string {
  if (value === undefined) return nodeEnv === 'production' ? [] : '*';
  const v = value.trim();
  if (v === '*') return '*';
  if (v.toLowerCase() === 'none') return [];
  const origins = v
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const bad = origins.filter((o) => !/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(o));
  if (bad.length) return `not origins (scheme://host[:port], no path): ${bad.join(', ')}`;
  return origins.map((o) => o.toLowerCase());
}

function isP256PublicKeyPem(pem: string): boolean {
  if (!pem.includes('BEGIN PUBLIC KEY')) return false;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
