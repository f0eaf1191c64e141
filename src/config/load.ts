// The only module that reads process.env: parse once, report every bad key at once, freeze. The shape it
// returns: types.ts. Its parts: schema.ts (the keys), rules.ts (cross-field rules), parse.ts (helpers), and one
// part per group with files or secrets of its own (chain.ts, custody.ts, prices.ts, operator-tokens.ts, role.ts).
import { RFQ_EIP712_SALT_DEV } from '../constants.js';
import { parseFailpoints } from '../failpoints.js';
import { chainSettings } from './chain.js';
import { custodySettings } from './custody.js';
import { readOperatorTokens } from './operator-tokens.js';
import { deepFreeze, defaultSiweDomain, parseCorsOrigins, parseTrustProxy, type TrustProxy } from './parse.js';
import { priceProblems, priceSettings } from './prices.js';
import { roleProblems } from './role.js';
import { bufferProblem, deploymentProblems, rfqProblems } from './rules.js';
import { schema, type Parsed } from './schema.js';
import type { Config } from './types.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The keys the migration step reads (`loadConfig(env, { scope: 'migrate' })`). */
const MIGRATION_KEYS = [
  'NODE_ENV',
  'DATABASE_URL',
  'REDIS_URL',
  'DATABASE_PREPARED_STATEMENTS',
  'DATA_DIR',
  'QUEUE_PREFIX',
  'LOG_LEVEL',
] as const;

/**
 * Parses the environment; throws ConfigError naming every bad key. `role`: the process's (src/process.ts), whose own
 * rules apply too (src/config/role.ts: a production API process holds no signing secret).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  opts: { scope?: 'migrate'; role?: 'all' | 'api' | 'workers' } = {},
): Readonly<Config> {
  // The migration step reads the database settings only (docs/deployment.md): no other key is required or read.
  const migrate = opts.scope === 'migrate';
  const e = parseEnv(env, migrate);
  return deepFreeze(buildConfig(e, env, checkEnv(e, opts.role, migrate)));
}

/** Each key on its own (src/config/schema.ts); throws ConfigError naming every bad one. */
function parseEnv(env: Record<string, string | undefined>, migrate: boolean): Parsed {
  const result = schema.safeParse(migrate ? Object.fromEntries(MIGRATION_KEYS.map((k) => [k, env[k]])) : env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return result.data;
}

type Checked = ReturnType<typeof checkEnv>;

/** The rules across keys, files and roles, and the settings they read; throws ConfigError naming every problem. */
function checkEnv(e: Parsed, role: 'all' | 'api' | 'workers' | undefined, migrate: boolean) {
  const problems: string[] = [];
  problems.push(...deploymentProblems(e));
  const cors = parseCorsOrigins(e.CORS_ORIGINS, e.NODE_ENV);
  if (typeof cors === 'string' && cors !== '*') problems.push(`CORS_ORIGINS: ${cors}`);
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if ('problem' in trustProxy) problems.push(`TRUST_PROXY: ${trustProxy.problem}`);
  const operatorTokens = readOperatorTokens(e.OPERATOR_TOKENS_FILE, e.OPERATOR_TOKEN !== undefined, problems);
  const buffer = bufferProblem(e.MARKET_DURATIONS, e.MARKET_BETTING_CLOSE_BUFFER_MS);
  if (buffer) problems.push(`MARKET_BETTING_CLOSE_BUFFER_MS: ${buffer}`);
  problems.push(...rfqProblems(e));
  const chain = chainSettings(e, problems);
  const custody = custodySettings(e, problems);
  if (role) problems.push(...roleProblems(e, role));
  problems.push(...priceProblems(e));
  const failpoints = parseFailpoints(e.FAILPOINTS ?? '');
  for (const p of failpoints.problems) problems.push(`FAILPOINTS: ${p}`);
  if (e.FAILPOINTS && e.NODE_ENV === 'production') problems.push('FAILPOINTS: fault injection is refused when NODE_ENV=production');
  if (migrate) problems.splice(0, problems.length, ...problems.filter((p) => MIGRATION_KEYS.some((k) => p.startsWith(`${k}:`))));
  if (problems.length) throw new ConfigError(problems);
  return { cors, trustProxy, operatorTokens, chain, custody, failpoints };
}

/** The frozen config's shape from the parsed and checked keys. */
function buildConfig(e: Parsed, env: Record<string, string | undefined>, checked: Checked): Config {
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    // Unset, a workers process must not take the API's default 3000 (several processes share one host in development).
    probePort: env.PORT?.trim() ? e.PORT : 0,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    databaseListenUrl: e.DATABASE_LISTEN_URL,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    databasePoolMax: e.DATABASE_POOL_MAX,
    redisUrl: e.REDIS_URL,
    dataDir: e.DATA_DIR,
    queuePrefix: e.QUEUE_PREFIX,
    deployment: e.REDIS_URL ? 'production' : e.DATABASE_URL ? 'postgres' : 'embedded',
    operatorToken: e.OPERATOR_TOKEN,
    operatorTokens: checked.operatorTokens && { ...checked.operatorTokens, reloadMs: e.OPERATOR_TOKENS_RELOAD_MS },
    privy: { appId: e.PRIVY_APP_ID, verificationKey: e.PRIVY_VERIFICATION_KEY },
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    sessionCacheMs: e.SESSION_CACHE_MS,
    siwe: { domain: (e.SIWE_DOMAIN ?? defaultSiweDomain(e.PUBLIC_URL, e.PORT)).toLowerCase(), chainIds: e.SIWE_CHAIN_IDS },
    mm: mmSettings(e),
    userChannel: { maxPerUser: e.USER_WS_MAX_PER_USER, retentionMs: e.USER_EVENTS_RETENTION_MS },
    connections: { maxPerIp: e.HTTP_MAX_CONNECTIONS_PER_IP, maxTotal: e.HTTP_MAX_CONNECTIONS },
    markets: {
      assets: e.MARKET_ASSETS,
      durations: e.MARKET_DURATIONS,
      bettingCloseBufferMs: e.MARKET_BETTING_CLOSE_BUFFER_MS,
      lookupHorizonMs: e.MARKET_LOOKUP_HORIZON_MS,
    },
    depositSyncWaitMs: e.DEPOSIT_SYNC_WAIT_MS,
    settlementMode: e.SETTLEMENT_MODE,
    chain: checked.chain,
    demoOnchainBalanceMicros: BigInt(e.DEMO_ONCHAIN_BALANCE_MICROS),
    custody: checked.custody,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    failpoints: checked.failpoints.points,
    rfq: rfqSettings(e),
    prices: priceSettings(e),
    chainRpcUrl: e.CHAIN_RPC_URL,
    resolution: {
      delayMs: e.RESOLUTION_DELAY_MS,
      maxWaitMs: e.RESOLUTION_MAX_WAIT_MS,
      disputeVoidAfterMs: e.DISPUTE_VOID_AFTER_MS,
      overdueAfterMs: e.RESOLUTION_OVERDUE_AFTER_MS,
    },
    workerHeartbeatStaleMs: e.WORKER_HEARTBEAT_STALE_MS,
    queueWaitMs: e.QUEUE_WAIT_MS,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    docsEnabled: e.DOCS_ENABLED,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    demoData: e.DEMO_DATA,
    corsOrigins: checked.cors as '*' | string[],
    trustProxy: checked.trustProxy as TrustProxy,
    migrateOnStart:
      e.MIGRATE_ON_START === undefined ? e.NODE_ENV !== 'production' : e.MIGRATE_ON_START === 'true' || e.MIGRATE_ON_START === '1',
  };
}

function mmSettings(e: Parsed): Config['mm'] {
  return {
    authDomain: e.MM_AUTH_DOMAIN,
    challengeTtlMs: e.MM_CHALLENGE_TTL_MS,
    authTimeoutMs: e.MM_AUTH_TIMEOUT_MS,
    heartbeatIntervalMs: e.MM_HEARTBEAT_INTERVAL_MS,
    maxMissedPongs: e.MM_MAX_MISSED_PONGS,
    sessionTtlMs: e.MM_SESSION_TTL_MS,
    maxConnectionsPerIp: e.MM_MAX_CONNECTIONS_PER_IP,
    maxUnauthenticatedPerIp: Math.min(e.MM_MAX_UNAUTHENTICATED_PER_IP, e.MM_MAX_CONNECTIONS_PER_IP),
    maxFramesPerSecond: e.MM_MAX_FRAMES_PER_SECOND,
    frameBurst: e.MM_MAX_FRAME_BURST,
    maxQueuedFrames: e.MM_MAX_QUEUED_FRAMES,
    maxUnauthenticatedFrames: e.MM_MAX_UNAUTHENTICATED_FRAMES,
  };
}

function rfqSettings(e: Parsed): Config['rfq'] {
  return {
    quoteWindowMs: e.RFQ_QUOTE_WINDOW_MS,
    maxDeadlineMs: e.RFQ_MAX_DEADLINE_MS,
    sweepEveryMs: e.RFQ_SWEEP_EVERY_MS,
    minStakeMicros: BigInt(e.RFQ_MIN_STAKE_MICROS),
    maxStakeMicros: BigInt(e.RFQ_MAX_STAKE_MICROS),
    maxPayoutMicros: BigInt(e.RFQ_MAX_PAYOUT_MICROS),
    maxLegs: e.RFQ_MAX_LEGS,
    maxOpenPerUser: e.RFQ_MAX_OPEN_PER_USER,
    maxWaiters: e.RFQ_MAX_WAITERS,
    maxWaitersPerUser: Math.min(e.RFQ_MAX_WAITERS_PER_USER, e.RFQ_MAX_WAITERS),
    admission: {
      maxInFlight: e.RFQ_ADMISSION_MAX_IN_FLIGHT,
      // Unset: a fifth of the quote window (an RFQ waits behind the backlog at each of its ~4 steps).
      maxLoopDelayMs: e.RFQ_ADMISSION_MAX_LOOP_DELAY_MS < 0 ? Math.ceil(e.RFQ_QUOTE_WINDOW_MS / 5) : e.RFQ_ADMISSION_MAX_LOOP_DELAY_MS,
      maxCreateMs: e.RFQ_ADMISSION_MAX_CREATE_MS < 0 ? Math.ceil(e.RFQ_QUOTE_WINDOW_MS / 5) : e.RFQ_ADMISSION_MAX_CREATE_MS,
    },
    signingChainId: e.RFQ_SIGNING_CHAIN_ID,
    eip712Name: e.RFQ_EIP712_NAME,
    eip712Salt: e.RFQ_EIP712_SALT ?? RFQ_EIP712_SALT_DEV,
    minFillMicros: BigInt(e.RFQ_MIN_FILL_MICROS),
    mmMaxQuotesPerSecond: e.MM_MAX_QUOTES_PER_SECOND,
  };
}

/** For scripts that must refuse to run in production before anything else is checked. */
export function isProductionEnv(env: Record<string, string | undefined> = process.env): boolean {
  return env.NODE_ENV === 'production';
}
