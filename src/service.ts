// Builds the HTTP service (and later the WebSocket gateway) on an open runtime.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from './runtime.js';
import { createApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { loadOpenApiDocument } from './http/spec.js';
import { operationsHandlers } from './http/handlers/operations.js';
import { sameSecret, type TokenResolver } from './http/auth.js';
import { authHandlers } from './http/handlers/auth.js';
import { usersHandlers } from './http/handlers/users.js';
import { balancesHandlers } from './http/handlers/balances.js';
import { createSettlementProducer } from './jobs/settlement-producer.js';
import { createSettlementAdapter } from './domain/settlement/index.js';
import { marketsHandlers } from './http/handlers/markets.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createPrivyVerifier, type PrivyVerifier } from './domain/identity/privy-token.js';
import { DEV_PRIVY_APP_ID } from './domain/identity/dev-identity.js';
import { ensureDevKeyPair } from './domain/identity/dev-keys.js';
import { resolveSessionToken } from './domain/identity/sessions.js';
import { marketMakersHandlers } from './http/handlers/market-makers.js';
import { createGateway } from './ws/gateway.js';
import { poolImagesHandlers } from './http/handlers/pool-images.js';
import { contestsHandlers } from './http/handlers/contests.js';
import { createResolutionProducer } from './jobs/resolution-producer.js';

export interface HttpService {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startHttp(rt: Runtime): Promise<HttpService> {
  const { config, logger, orm, queues } = rt;
  const metrics = createMetrics();
  const operatorToken = config.operatorToken;
  const resolveToken: TokenResolver = async (token) => {
    if (operatorToken && sameSecret(token, operatorToken)) return { kind: 'operator' };
    return resolveSessionToken(orm.em.fork(), token);
  };
  const privy = await privyVerifier(config, logger);
  const gateway = createGateway({ mm: config.mm, orm, logger, checkFrames: config.nodeEnv !== 'production' });
  const settlementProducer = createSettlementProducer(queues);
  const resolutionProducer = createResolutionProducer(queues);
  const settlement = createSettlementAdapter({ mode: config.settlementMode, demoOnchainBalanceMicros: config.demoOnchainBalanceMicros });
  const handlers = {
    ...authHandlers({ orm, privy, sessionTtlSeconds: config.sessionTtlSeconds, siwe: config.siwe }),
    ...usersHandlers({ orm }),
    ...balancesHandlers({ orm, producer: settlementProducer, settlement, syncWaitMs: config.depositSyncWaitMs }),
    ...marketMakersHandlers({ orm, onRemoved: (wallet) => gateway.endWallet(wallet) }),
    ...marketsHandlers({ orm, settings: config.markets }),
    ...poolImagesHandlers({ orm }),
    ...contestsHandlers({ orm, resolution: resolutionProducer }),
    ...operationsHandlers(
      {
        migrations: () => rt.migrationsApplied,
        database: async () => {
          await orm.em.fork().getConnection().execute('select 1');
        },
        queue: () => queues.ping(),
      },
      metrics,
    ),
  };
  const app = await createApp({
    logger,
    document: loadOpenApiDocument(),
    handlers,
    resolveToken,
    metrics,
    rateLimitPerMinute: config.rateLimitPerMinute,
  });
  const server = createServer(app);
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host }, 'listening');
  return {
    server,
    port,
    async close() {
      await gateway.close(); // market makers get close code 1001 before the HTTP server stops
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await settlementProducer.close();
      await resolutionProducer.close();
    },
  };
}

/**
 * The configured Privy app, or outside production with PRIVY_* unset, the development identity whose
 * key pair lives in DATA_DIR/dev-privy (tokens minted by `npm run dev:token`).
 */
async function privyVerifier(config: Readonly<Config>, logger: Logger): Promise<PrivyVerifier> {
  const { appId, verificationKey } = config.privy;
  if (appId && verificationKey) return createPrivyVerifier(appId, verificationKey);
  if (config.nodeEnv === 'production') throw new Error('PRIVY_APP_ID and PRIVY_VERIFICATION_KEY are required in production');
  const dev = await ensureDevKeyPair(config.dataDir);
  logger.info(
    { privy_app_id: DEV_PRIVY_APP_ID, key_dir: dev.dir, key_created: dev.created },
    `development identity: PRIVY_APP_ID/PRIVY_VERIFICATION_KEY unset, so Privy tokens are verified against the development key in ${dev.dir}; ` +
      'mint one with: npm run -s dev:token -- --wallet 0x<address>',
  );
  return createPrivyVerifier(DEV_PRIVY_APP_ID, dev.publicKeyPem);
}
