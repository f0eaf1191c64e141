// Builds the HTTP service and the WebSocket gateway on an open runtime: one set-up module per feature under
// src/service/ (access, rfq, gateway, producers, status, money, contests, handlers, server), wired here in
// order, and closed here in order.
import type { Server } from 'node:http';
import type { Runtime } from './runtime.js';
import { createApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { registerPriceSourceMetrics } from './http/price-metrics.js';
import { sourceHealth } from './domain/prices/health.js';
import { loadOpenApiDocument } from './http/spec.js';
import type { ProcessRole } from './http/handlers/operations.js';
import { startMetricsServer } from './http/probes.js';
import { createClientAddress } from './http/client-address.js';
import { createRateLimitStore } from './http/rate-limit-store.js';
import { createCors } from './http/cors.js';
import { createDocsRouter } from './http/docs/router.js';
import { createDocumentStore } from './http/docs/documents.js';
import { demoSeedAllowed } from './domain/demo/seed.js';
import { startDemoMakerOnStart } from './trading/demo-maker.js';
import { openAccess } from './service/access.js';
import { openContests } from './service/contests.js';
import { openGateway, sharedStore } from './service/gateway.js';
import { allHandlers } from './service/handlers.js';
import { openMoney } from './service/money.js';
import { openProducers } from './service/producers.js';
import { openRfq } from './service/rfq.js';
import { admissionGate } from './http/admission.js';
import { closeHttp, listenHttp } from './service/server.js';
import { openStatus } from './service/status.js';

export interface HttpService {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startHttp(rt: Runtime, role: ProcessRole = 'api'): Promise<HttpService> {
  const { config, logger, orm } = rt;
  const metrics = createMetrics();
  registerPriceSourceMetrics(metrics.registry, () => sourceHealth(orm.em.fork()));
  const forkDb = () => orm.em.fork();
  const access = await openAccess(rt, forkDb);
  const shared = sharedStore(rt);
  const rfq = openRfq(rt, forkDb, metrics.registry);
  // Who the client is, for rate limits, WebSocket caps and logs alike (TRUST_PROXY).
  const clientAddress = createClientAddress(config.trustProxy);
  const ws = openGateway(rt, shared, clientAddress, rfq.trading);
  const producers = openProducers(rt);
  const status = openStatus(rt, role, metrics.registry);
  const money = await openMoney(rt, forkDb, metrics.registry, producers);
  const contests = await openContests(rt, forkDb, producers, money.settlement);
  const demo = {
    allowed: demoSeedAllowed(config),
    bus: rt.bus,
    forkDb,
    rfq: rfq.rfqDeps,
    trading: rfq.trading,
    settlement: money.settlement,
  };
  const stopDemoMaker = await startDemoMakerOnStart({ ...demo, log: logger });
  const documents = createDocumentStore({ publicUrl: config.publicUrl, fallbackHost: `localhost:${config.port || 3000}` });
  const features = { access, rfq, gateway: ws.gateway, producers, status, money, contests, documents, metrics };
  const rateLimitStore = createRateLimitStore(shared);
  const app = await createApp({
    logger,
    document: loadOpenApiDocument(),
    handlers: allHandlers(rt, features),
    forkDb,
    resolveToken: access.resolveToken,
    metrics,
    rateLimitPerMinute: config.rateLimitPerMinute,
    rateLimitStore: rateLimitStore.store,
    clientAddress,
    routes: [createCors(config.corsOrigins), createDocsRouter({ enabled: config.docsEnabled, publicUrl: config.publicUrl })],
    admit: admissionGate(rfq.admission),
  });
  const { server, port } = await listenHttp(rt, app, ws.gateway);
  // METRICS_PORT: /metrics on the internal port only (the public one answers it 404).
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(rt, status.probes, metrics);
  logger.info({ port, host: config.host }, 'listening');
  return {
    server,
    port,
    async close() {
      stopDemoMaker();
      rfq.trading.stop(); // pending best-mode answers read the RFQ as it is; the sweeper closes it
      rfq.waiters.close(); // long-polls answer now instead of holding the server open
      rfq.admission.stop();
      access.sessions.close();
      access.operators.stop();
      await ws.gateway.close(); // market makers get close code 1001 before the HTTP server stops
      await closeHttp(server);
      producers.operationWaiter.close();
      await money.custody.close();
      await producers.settlement.close();
      money.settlementGauges.stop();
      await money.settlement.close?.();
      await producers.resolution.close();
      await producers.window.close();
      await metricsServer?.close();
      await status.probes.close();
      await rateLimitStore.close();
      await ws.sharedCap.close();
      await ws.userCap.close();
    },
  };
}
