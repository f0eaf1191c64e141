// Builds the HTTP service (and later the WebSocket gateway) on an open runtime.
import { chainHealth, chainStatus } from './domain/settlement/onchain/chain-status.js';
import { rfqDepsOf } from './domain/rfq/deps.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from './runtime.js';
import { createApp } from './http/app.js';
import { Gauge } from 'prom-client';
import { createMetrics } from './http/metrics.js';
import { registerPriceSourceMetrics } from './http/price-metrics.js';
import { sourceHealth, sourceStatuses } from './domain/prices/health.js';
import { loadOpenApiDocument } from './http/spec.js';
import { operationsHandlers } from './http/handlers/operations.js';
import { authHandlers } from './http/handlers/auth.js';
import { usersHandlers } from './http/handlers/users.js';
import { balancesHandlers } from './http/handlers/balances.js';
import { historyHandlers } from './http/handlers/history.js';
import { createSettlementProducer } from './jobs/settlement-producer.js';
import { openSettlement } from './domain/settlement/index.js';
import { startSettlementGauges } from './http/settlement-gauges.js';
import { marketsHandlers } from './http/handlers/markets.js';
import { choosePrivyVerifier } from './domain/identity/privy-setup.js';
import { createTokenResolver } from './http/token-resolver.js';
import { createSessionCache } from './http/session-cache.js';
import type { Handlers } from './http/handler.js';
import { marketMakersHandlers } from './http/handlers/market-makers.js';
import { createGateway } from './ws/gateway.js';
import { limitConnections } from './http/connection-limits.js';
import { poolImagesHandlers } from './http/handlers/pool-images.js';
import { contestsHandlers } from './http/handlers/contests.js';
import { PageCache } from './http/page-cache.js';
import { onContestsChanged } from './bus/contest-events.js';
import { CONTEST_PAGE_TTL_MS } from './constants.js';
import { createResolutionProducer } from './jobs/resolution-producer.js';
import { rfqHandlers } from './http/handlers/rfq.js';
import { positionsHandlers } from './http/handlers/positions.js';
import { marketWindowsHandlers } from './http/handlers/market-windows.js';
import { mmTradingHandlers } from './http/handlers/mm-trading.js';
import { createWindowResolutionProducer } from './jobs/window-resolution-producer.js';
import { createProbes, startMetricsServer } from './http/probes.js';
import { createClientAddress, createTrustedPeer } from './http/client-address.js';
import { createSystemStatus, registerStatusGauges } from './http/system-status.js';
import { registerResolutionGauges } from './http/resolution-metrics.js';
import { systemStatusHandlers } from './http/handlers/system-status.js';
import type { ProcessRole } from './http/handlers/operations.js';
import { priceSourceComponents, type StatusComponent } from './domain/status.js';
import { createOperationWaiter } from './trading/operation-waiter.js';
import { boundEnqueue, withDeadline } from './jobs/queue-gate.js';
import { requireQueue } from './http/queue-gate.js';
import { createRateLimitStore } from './http/rate-limit-store.js';
import { createSharedConnectionCap } from './ws/connection-slots.js';
import { createCors } from './http/cors.js';
import { chooseOperatorToken } from './domain/identity/dev-operator.js';
import { OperatorAccounts } from './domain/identity/operator-accounts.js';
import { siweUri } from './domain/identity/siwe.js';
import { demoSeedAllowed, seedDemoOnStart } from './domain/demo/seed.js';
import { startDemoMakerOnStart } from './trading/demo-maker.js';
import { createDocsRouter } from './http/docs/router.js';
import { createDocumentStore } from './http/docs/documents.js';
import { documentsHandlers } from './http/handlers/documents.js';
import { createRfqLifecycle } from './trading/rfq-lifecycle.js';
import { createRfqWaiters } from './trading/rfq-wait.js';
import { rfqTakerHandlers } from './http/handlers/rfq-taker.js';
import { createRfqAdmission } from './http/admission.js';
import { rfqMakerHandlers } from './http/handlers/rfq-maker.js';
import { auditHandlers } from './http/handlers/audit.js';
import { settlementReviewHandlers } from './http/handlers/settlement-review.js';
import { withdrawalReviewHandlers } from './http/handlers/withdrawal-review.js';
import { createMoneyLifecycle } from './trading/money-lifecycle.js';
import { createContestLifecycle } from './trading/contest-lifecycle.js';
import { createIdentityLifecycle } from './trading/identity-lifecycle.js';
import { openCustody } from './trading/money-custody.js';

export interface HttpService {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startHttp(rt: Runtime, role: ProcessRole = 'api'): Promise<HttpService> {
  const { config, logger, orm, queues } = rt;
  const metrics = createMetrics();
  registerPriceSourceMetrics(metrics.registry, () => sourceHealth(orm.em.fork()));
  const forkDb = () => orm.em.fork();
  const operators = new OperatorAccounts({ token: chooseOperatorToken(config, logger), file: config.operatorTokens }, logger).start();
  if (operators.disabled)
    logger.warn(
      'operator API disabled: OPERATOR_TOKEN and OPERATOR_TOKENS_FILE are unset, so every /v1/admin request is refused (401); set one to enable it',
    );
  else logger.info({ operators: operators.names() }, 'operator accounts');
  const privy = await choosePrivyVerifier({ ...config.privy, production: config.nodeEnv === 'production', dataDir: config.dataDir }, logger);
  const shared = { deployment: config.deployment, redisUrl: config.redisUrl, prefix: config.queuePrefix, orm, log: logger };
  const sharedCap = createSharedConnectionCap({ ...shared, max: config.mm.maxConnectionsPerIp });
  // USER_WS_MAX_PER_USER across processes: the same lease store, keyed `user:<id>` (src/ws/user-stream.ts).
  const userCap = createSharedConnectionCap({ ...shared, max: config.userChannel.maxPerUser });
  // RFQ trading settings shared by the HTTP handlers, the WebSocket stream and the demo maker.
  const rfqDeps = rfqDepsOf(config);
  // The RFQ lifecycle's steps, the only publisher of RFQ events. This process closes the RFQs it created at
  // their due time (the sweeper is the backstop).
  const trading = createRfqLifecycle({ forkDb, bus: rt.bus, rfq: rfqDeps, log: logger });
  // Who the client is, for rate limits, WebSocket caps and logs alike (TRUST_PROXY).
  const clientAddress = createClientAddress(config.trustProxy);
  const gateway = createGateway({
    clientAddress,
    mm: config.mm,
    orm,
    logger,
    checkFrames: config.nodeEnv !== 'production',
    sharedCap,
    bus: rt.bus,
    rfq: {
      trading,
      offered: { assets: config.markets.assets, durations: config.markets.durations },
      maxQuotesPerSecond: config.rfq.mmMaxQuotesPerSecond,
    },
    user: { maxPerUser: config.userChannel.maxPerUser, sharedCap: userCap },
  });
  // Enqueues give up after QUEUE_WAIT_MS (the outbox and resolution relays take over): no request hangs on Redis.
  const settlementProducer = boundEnqueue(createSettlementProducer(queues), config.queueWaitMs);
  const resolutionProducer = boundEnqueue(createResolutionProducer(queues), config.queueWaitMs);
  const operationWaiter = createOperationWaiter(rt.bus);
  const windowProducer = createWindowResolutionProducer(queues);
  const windowSettlement = { enqueue: (marketId: number) => withDeadline(windowProducer.enqueue(marketId), config.queueWaitMs, 'enqueue') };
  const probes = createProbes(rt, role);
  // The external components an operator watches (GET /v1/admin/status, crfq_component_up): every price
  // source, and the chain once an onchain settlement adapter adds itself here.
  const components: StatusComponent[] = priceSourceComponents(config.prices.sources, () =>
    sourceStatuses(orm.em.fork(), config.prices.sources, Date.now()),
  );
  const chainReport = config.chain
    ? () => chainStatus(orm.em.fork(), { nowMs: Date.now(), staleAfterMs: 3 * config.chain!.reconcileEveryMs })
    : undefined;
  if (chainReport) components.push({ name: 'chain', kind: 'chain', check: async () => chainHealth(await chainReport()) });
  const systemStatus = createSystemStatus({
    orm,
    schedulerQueues: probes.schedulerQueues,
    queue: queues,
    bus: rt.bus,
    staleAfterMs: config.workerHeartbeatStaleMs,
    cadence: {
      'sweep-rfqs': config.rfq.sweepEveryMs,
      'probe-price-sources': config.prices.probeEveryMs,
      ...(config.chain ? { 'reconcile-chain': config.chain.reconcileEveryMs } : {}),
    },
    components,
    chain: chainReport,
    overdueAfterMs: config.resolution.overdueAfterMs,
    log: logger,
  });
  registerStatusGauges(metrics.registry, systemStatus);
  registerResolutionGauges(metrics.registry, systemStatus);
  const settlement = await openSettlement(config, orm.em.fork(), logger);
  const settlementGauges = startSettlementGauges({ registry: metrics.registry, settlement, forkDb, log: logger });
  // Deposits and withdrawals: the money lifecycle's steps under the custody rules, the only publisher of money events.
  const custody = openCustody(config, logger);
  const money = createMoneyLifecycle({
    forkDb,
    bus: rt.bus,
    settlement,
    log: logger,
    custody: custody.custody,
    // An approval's enqueue is bounded like a request's (its outbox row is the relay's backstop).
    producer: { enqueue: settlementProducer.enqueue, ensure: (id) => withDeadline(settlementProducer.ensure(id), config.queueWaitMs, 'enqueue') },
    waiter: operationWaiter,
    syncWaitMs: config.depositSyncWaitMs,
  });
  // The public contest reads' pages, dropped on `contests.changed` from any process (src/http/page-cache.ts).
  const contestCaches = {
    pages: new PageCache({ ttlMs: CONTEST_PAGE_TTL_MS }),
    callers: new PageCache({ ttlMs: CONTEST_PAGE_TTL_MS, maxPages: 20_000 }),
  };
  onContestsChanged(rt.bus, (contestId) => (contestCaches.pages.invalidate(contestId), contestCaches.callers.invalidate(contestId)));
  // Contests and identity: their lifecycles' steps, the only publishers of `contests.changed` and `sessions.changed`.
  const contests = createContestLifecycle({ forkDb, bus: rt.bus, resolution: resolutionProducer, log: logger });
  const identity = createIdentityLifecycle({ bus: rt.bus, contests });
  if (await seedDemoOnStart(orm.em.fork(), settlement, config, logger)) await contests.allChanged();
  const stopDemoMaker = await startDemoMakerOnStart({
    allowed: demoSeedAllowed(config),
    bus: rt.bus,
    forkDb,
    rfq: rfqDeps,
    trading,
    settlement,
    log: logger,
  });
  const documents = createDocumentStore({ publicUrl: config.publicUrl, fallbackHost: `localhost:${config.port || 3000}` });
  // getRfq long-polls, woken from the bus.
  const rfqWaiters = createRfqWaiters(rt.bus, { max: config.rfq.maxWaiters, maxPerUser: config.rfq.maxWaitersPerUser });
  new Gauge({
    name: 'rfq_long_poll_waiters',
    help: 'GET /v1/rfq/{rfq_id}?wait_ms long-polls this process holds (RFQ_MAX_WAITERS, RFQ_MAX_WAITERS_PER_USER)',
    registers: [metrics.registry],
    collect() {
      this.set(rfqWaiters.size());
    },
  });
  // POST /v1/rfq refused at the door when this process is over its threshold (docs/trading.md, "Under overload").
  const admission = createRfqAdmission({ ...config.rfq.admission, quoteWindowMs: config.rfq.quoteWindowMs }, { registry: metrics.registry });
  const sessions = createSessionCache(config.sessionCacheMs, rt.bus, logger);
  const allHandlers: Handlers = {
    ...documentsHandlers(documents, { publicUrl: config.publicUrl }),
    ...authHandlers({
      privy,
      sessionTtlSeconds: config.sessionTtlSeconds,
      siwe: config.siwe,
      signIn: { uri: siweUri(config.siwe.domain, config.publicUrl), chainId: config.rfq.signingChainId },
      identity,
    }),
    ...usersHandlers({ identity }),
    ...balancesHandlers({ money, settlement }),
    ...historyHandlers({ confirmations: config.chain?.confirmations ?? null }),
    ...marketMakersHandlers({
      onRemoved: (wallet, rfqIds) => {
        gateway.endWallet(wallet); // this process's connections now; the others hear `mm.removed`
        void trading.makerRemoved(wallet, rfqIds);
      },
    }),
    ...marketsHandlers({ settings: config.markets }),
    ...poolImagesHandlers(),
    ...auditHandlers(),
    ...settlementReviewHandlers({ money }),
    ...withdrawalReviewHandlers({ money }),
    ...positionsHandlers(),
    ...mmTradingHandlers(),
    ...marketWindowsHandlers({ settings: config.markets, settlement: windowSettlement }),
    ...contestsHandlers({ contests, caches: contestCaches }),
    ...rfqHandlers({ settings: config.rfq }),
    ...rfqTakerHandlers({ trading, waiters: rfqWaiters, admission }),
    ...rfqMakerHandlers(),
    ...operationsHandlers(probes.readiness, metrics, config.metricsToken, config.metricsPort !== undefined),
    ...systemStatusHandlers(systemStatus),
  };
  // Deposits and withdrawals wait at most QUEUE_WAIT_MS for the queue, then answer 503 with Retry-After.
  const handlers = requireQueue(allHandlers, queues, config.queueWaitMs);
  const rateLimitStore = createRateLimitStore(shared);
  const app = await createApp({
    logger,
    document: loadOpenApiDocument(),
    handlers,
    forkDb,
    resolveToken: createTokenResolver(operators, forkDb, sessions),
    metrics,
    rateLimitPerMinute: config.rateLimitPerMinute,
    rateLimitStore: rateLimitStore.store,
    clientAddress,
    routes: [createCors(config.corsOrigins), createDocsRouter({ enabled: config.docsEnabled, publicUrl: config.publicUrl })],
  });
  // headersTimeout and requestTimeout are checked every connectionsCheckingInterval (node's default: 30 s).
  const server = createServer({ connectionsCheckingInterval: 1_000 }, app);
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // Trusted proxies carry many clients on one address: exempt from the per-address TCP cap (the total still counts them).
  const trustedPeer = createTrustedPeer(config.trustProxy);
  limitConnections(server, { ...config.connections, silentTimeoutMs: server.headersTimeout, trustedPeer }, logger);
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // METRICS_PORT: /metrics on the internal port only (the public one answers it 404).
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(rt, probes, metrics);
  logger.info({ port, host: config.host }, 'listening');
  return {
    server,
    port,
    async close() {
      stopDemoMaker();
      trading.stop(); // pending best-mode answers read the RFQ as it is; the sweeper closes it
      rfqWaiters.close(); // long-polls answer now instead of holding the server open
      admission.stop();
      sessions.close();
      operators.stop();
      await gateway.close(); // market makers get close code 1001 before the HTTP server stops
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      operationWaiter.close();
      await custody.close();
      await settlementProducer.close();
      settlementGauges.stop();
      await settlement.close?.();
      await resolutionProducer.close();
      await windowProducer.close();
      await metricsServer?.close();
      await probes.close();
      await rateLimitStore.close();
      await sharedCap.close();
      await userCap.close();
    },
  };
}
