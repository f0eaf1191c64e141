// The HTTP server (src/service.ts): the request listener of src/http/app.ts behind node's timeouts and the
// per-address connection cap, with WebSocket upgrades handed to the gateway.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime.js';
import { createTrustedPeer } from '../http/client-address.js';
import { limitConnections } from '../http/connection-limits.js';
import type { Gateway } from '../ws/gateway.js';

/** Listens on PORT and HOST; resolves once listening. */
export async function listenHttp(
  { config, logger }: Runtime,
  app: Parameters<typeof createServer>[1],
  gateway: Gateway,
): Promise<{ server: Server; port: number }> {
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
  return { server, port: (server.address() as AddressInfo).port };
}

/** Stops accepting connections and closes the idle ones; resolves when the last connection is gone. */
export function closeHttp(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
