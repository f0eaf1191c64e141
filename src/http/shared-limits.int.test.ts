// Issue 15 #8: the rate limit and the market-maker WebSocket cap per IP hold across API processes:
// two API processes on one database (and one Redis, or none) allow the limit once, not twice.
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function twoApis(label: string, redis: boolean): Promise<[ServiceProcess, ServiceProcess]> {
  const db = await createTestDatabase(label);
  cleanups.push(() => db.drop());
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: redis ? TEST_REDIS_URL : undefined,
    QUEUE_PREFIX: uniquePrefix(label),
    RATE_LIMIT_PER_MINUTE: '4',
    MM_MAX_CONNECTIONS_PER_IP: '2',
  };
  const procs = await Promise.all([startServiceProcess({ env, args: ['--role=api'] }), startServiceProcess({ env, args: ['--role=api'] })]);
  for (const p of procs) cleanups.push(() => p.stop('SIGKILL'));
  return procs as [ServiceProcess, ServiceProcess];
}

/** POST /v1/auth/session documents 429; an empty body is a 400 that still counts against the limit. */
const signIn = async (p: ServiceProcess) => {
  const res = await fetch(`${p.baseUrl}/v1/auth/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  await res.text();
  return res.status;
};

/** Opens a market-maker WebSocket: 'open', or the HTTP status of a refused upgrade. */
function connect(p: ServiceProcess): Promise<{ status: number | 'open'; ws: WebSocket }> {
  const ws = new WebSocket(`ws://127.0.0.1:${p.port}/v1/ws`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ status: 'open', ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, ws }));
    ws.once('error', reject);
  });
}
const closed = (ws: WebSocket) => new Promise<void>((r) => (ws.readyState === WebSocket.CLOSED ? r() : ws.once('close', () => r())));

describe.each([
  ['PostgreSQL + Redis', true],
  ['PostgreSQL only', false],
] as const)('%s: limits across two API processes', (name, redis) => {
  let apis: Promise<[ServiceProcess, ServiceProcess]> | undefined;
  const started = () => (apis ??= twoApis(redis ? 'limredis' : 'limpg', redis));

  it('the rate limit counts requests to both processes together', async () => {
    const [a, b] = await started();
    const statuses = [await signIn(a), await signIn(b), await signIn(a), await signIn(b)];
    expect(statuses, name).not.toContain(429);
    expect(await signIn(a)).toBe(429);
    expect(await signIn(b)).toBe(429);
  }, 90_000);

  it('the WebSocket cap per IP counts connections to both processes together', async () => {
    const [a, b] = await started();
    const first = await connect(a);
    const second = await connect(b);
    expect([first.status, second.status]).toEqual(['open', 'open']);
    expect((await connect(a)).status).toBe(429);
    expect((await connect(b)).status).toBe(429);
    // Closing one frees its slot for either process.
    first.ws.close();
    await closed(first.ws);
    let again = await connect(b);
    for (let i = 0; i < 20 && again.status !== 'open'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await connect(b);
    }
    expect(again.status).toBe('open');
    again.ws.close();
    second.ws.close();
  }, 90_000);
});
