// Which checks each role needs (/readyz): the rest only degrade the answer.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { AppError } from '../../domain/errors.js';
import { createMetrics } from '../metrics.js';
import type { RequestContext } from '../context.js';
import { CheckState, operationsHandlers, type ProcessRole, type ReadinessProbe } from './operations.js';

const ok = async () => undefined;
const failing = async () => {
  throw new Error('connection refused');
};
const probe = (role: ProcessRole, over: Partial<ReadinessProbe> = {}): ReadinessProbe => ({
  role,
  migrations: async () => 'ok',
  database: ok,
  queue: ok,
  bus: ok,
  workers: ok,
  schedulers: ok,
  ...over,
});
const ctx = { log: createLogger('silent') } as unknown as RequestContext;
const readyz = async (p: ReadinessProbe) => {
  try {
    const r = await operationsHandlers(p, createMetrics()).getReadiness({} as never, ctx);
    return { status: r.status, body: (r as { body: unknown }).body };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.status, body: err.details };
  }
};

describe('getReadiness per role', () => {
  it('ready when every check is ok', async () => {
    expect(await readyz(probe('api'))).toEqual({
      status: 200,
      body: {
        status: 'ready',
        role: 'api',
        checks: { database: 'ok', queue: 'ok', bus: 'ok', migrations: 'ok', workers: 'ok', schedulers: 'ok', prices: 'unknown' },
        price_sources: [],
        signature_backend: 'libsecp256k1',
      },
    });
  });

  it('workers and schedulers only degrade an API; a workers process does not need the bus either', async () => {
    const stale = async () => {
      throw new CheckState('stale', 'old heartbeat');
    };
    expect(await readyz(probe('api', { workers: stale, schedulers: failing }))).toMatchObject({
      status: 200,
      body: { status: 'degraded', checks: { workers: 'stale', schedulers: 'failed' } },
    });
    expect(await readyz(probe('workers', { bus: failing }))).toMatchObject({
      status: 200,
      body: { status: 'degraded', role: 'workers', checks: { bus: 'failed' } },
    });
    expect(await readyz(probe('api', { bus: failing }))).toMatchObject({ status: 503, body: { role: 'api', checks: { bus: 'failed' } } });
  });

  it('every role needs its database, its queue and migrations applied', async () => {
    for (const role of ['all', 'api', 'workers'] as const) {
      expect(await readyz(probe(role, { database: failing }))).toMatchObject({
        status: 503,
        body: { role, checks: { database: 'failed' } },
      });
      expect(await readyz(probe(role, { queue: failing }))).toMatchObject({ status: 503, body: { checks: { queue: 'failed' } } });
      expect(await readyz(probe(role, { migrations: async () => 'pending' }))).toMatchObject({
        status: 503,
        body: { checks: { migrations: 'pending' } },
      });
    }
  });
});
