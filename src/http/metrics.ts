import { Registry, collectDefaultMetrics, Counter, Histogram } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'operation' | 'method' | 'status'>;
  duration: Histogram<'operation' | 'method'>;
  /** Requests served by the fast lane (src/http/app.ts): a GET of a URL validated before, without express. */
  fastLane: Counter;
}

export function createMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by operationId, method and status',
      labelNames: ['operation', 'method', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by operationId',
      labelNames: ['operation', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    fastLane: new Counter({
      name: 'http_fast_lane_requests_total',
      help: 'GET requests of a URL validated before, served without going through express (same steps and bytes)',
      registers: [registry],
    }),
  };
}
