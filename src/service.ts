// Builds the HTTP service (and later the WebSocket gateway) on an open runtime.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from './runtime.js';
import { createApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { loadOpenApiDocument } from './http/spec.js';
import { operationsHandlers } from './http/handlers/operations.js';
import { sameSecret, type TokenResolver } from './http/auth.js';

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
    return null;
  };
  const handlers = {
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
