// The bus across instances on real Redis and PostgreSQL: two instances in this process, and one real
// child process. Fences make "nothing more arrived" checks deterministic: a message published after X
// is delivered after X on both backends (Redis processes PUBLISHes in order; NOTIFYs arrive in commit order).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../testing/postgres.js';
import { createBus } from './create.js';
import { redisBusScope } from './redis.js';
import { BusPayloadTooLarge, busChannel, MAX_BUS_MESSAGE_BYTES, type Bus, type BusMessageMeta, type BusTopic } from './bus.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let db: TestDatabase;
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  db = await createTestDatabase('bus');
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await db?.drop();
});

type Mode = 'redis' | 'postgres';
const urls = (mode: Mode) => (mode === 'redis' ? { redisUrl: TEST_REDIS_URL } : { databaseUrl: db.url });

async function open(mode: Mode, prefix: string, onError?: (e: unknown, c: string) => void): Promise<Bus> {
  const bus = await createBus({ prefix, ...urls(mode), onError });
  cleanups.push(() => bus.close());
  return bus;
}

/** Records every message of a topic and lets a test wait for a predicate. */
function recorder(bus: Bus, topic: BusTopic) {
  const got: Array<{ p: unknown; m: BusMessageMeta }> = [];
  const waiters: Array<() => void> = [];
  bus.subscribe(topic, (p, m) => {
    got.push({ p, m });
    for (const w of waiters.splice(0)) w();
  });
  const until = async (pred: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting on ${topic}; got ${JSON.stringify(got.map((g) => g.p))}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  return { got, until, payloads: () => got.map((g) => g.p) };
}

describe.each(['redis', 'postgres'] as const)('bus on %s', (mode) => {
  it('delivers across instances once: locally first, to the other instance, never the echo; FIFO per publisher', async () => {
    const prefix = uniquePrefix(`bus${mode}`);
    const a = await open(mode, prefix);
    const b = await open(mode, prefix);
    expect(a.kind).toBe(mode);
    expect(a.instanceId).not.toBe(b.instanceId);
    const atA = recorder(a, 'rfq.open');
    const atB = recorder(b, 'rfq.open');
    const fenceAtA = recorder(a, 'rfq.closed');

    await a.publish('rfq.open', { rfq_id: 'r1', stake_micros: '10000000' });
    expect(atA.got).toEqual([{ p: { rfq_id: 'r1', stake_micros: '10000000' }, m: { origin: a.instanceId, local: true } }]);
    await atB.until(() => atB.got.length === 1);
    expect(atB.got[0]).toEqual({ p: { rfq_id: 'r1', stake_micros: '10000000' }, m: { origin: a.instanceId, local: false } });

    // B publishes a fence after it saw r1: when A has the fence, A's echo of r1 has come and gone.
    await b.publish('rfq.closed', { fence: 1 });
    await fenceAtA.until(() => fenceAtA.got.length === 1);
    expect(atA.got).toHaveLength(1);

    const n = 200;
    for (let i = 0; i < n; i++) void a.publish('rfq.open', { seq: i });
    await atB.until(() => atB.got.length === 1 + n);
    expect(atB.payloads().slice(1)).toEqual(Array.from({ length: n }, (_, i) => ({ seq: i })));
    expect(atA.got).toHaveLength(1 + n);
  });

  it('refuses an oversized payload before anything is sent; a payload at the limit crosses', async () => {
    const prefix = uniquePrefix(`busbig${mode}`);
    const a = await open(mode, prefix);
    const b = await open(mode, prefix);
    const atB = recorder(b, 'mm.event');
    const atA = recorder(a, 'mm.event');
    const err = await a.publish('mm.event', { frame: 'x'.repeat(MAX_BUS_MESSAGE_BYTES) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusPayloadTooLarge);
    expect((err as BusPayloadTooLarge).bytes).toBeGreaterThan(MAX_BUS_MESSAGE_BYTES);
    // Fill the envelope to exactly the limit (multi-byte characters count as bytes).
    // The Redis envelope also carries its deployment scope (`d`, src/bus/redis.ts): database 0, no deployment id here.
    const d = mode === 'redis' ? redisBusScope(0, undefined) : undefined;
    const envelopeOverhead = Buffer.byteLength(JSON.stringify({ i: a.instanceId, t: 'mm.event', p: { frame: '' }, d }));
    const fill = 'é'.repeat(50) + 'y'.repeat(MAX_BUS_MESSAGE_BYTES - envelopeOverhead - 100);
    await a.publish('mm.event', { frame: fill });
    await atB.until(() => atB.got.length === 1);
    expect(atB.payloads()).toEqual([{ frame: fill }]);
    expect(atA.payloads()).toEqual([{ frame: fill }]);
  });

  it('keeps prefixes apart, reports throwing handlers, answers ping, and refuses use after close', async () => {
    const prefix = uniquePrefix(`busiso${mode}`);
    const errors: string[] = [];
    const a = await open(mode, prefix);
    const b = await open(mode, prefix, (_e, ctx) => errors.push(ctx));
    const stranger = await open(mode, uniquePrefix(`busoth${mode}`));
    const atStranger = recorder(stranger, 'mm.removed');
    b.subscribe('mm.removed', () => {
      throw new Error('handler bug');
    });
    const atB = recorder(b, 'mm.removed');
    await a.publish('mm.removed', { wallet: '0xabc' });
    await atB.until(() => atB.got.length === 1);
    expect(errors).toEqual(['bus handler for mm.removed']);
    // The stranger's own fence arrives; a's message never did.
    const strangerFence = recorder(stranger, 'rfq.quote');
    await a.publish('rfq.quote', { fence: true });
    await stranger.publish('mm.removed', { fence: true });
    await atStranger.until(() => atStranger.got.length === 1);
    expect(atStranger.payloads()).toEqual([{ fence: true }]);
    expect(strangerFence.got).toEqual([]);

    await a.ping();
    await a.close();
    await expect(a.ping()).rejects.toThrow(/closed/);
    await expect(a.publish('rfq.open', {})).rejects.toThrow(/closed/);
    await b.ping();
  });

  it('reaches a real second process and hears its answer', async () => {
    const prefix = uniquePrefix(`buskid${mode}`);
    const a = await open(mode, prefix);
    const replies = recorder(a, 'rfq.closed');
    const env = {
      PATH: process.env.PATH,
      BUS_PREFIX: prefix,
      ...(mode === 'redis' ? { REDIS_URL: TEST_REDIS_URL } : { DATABASE_URL: db.url }),
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/testing/bus-peer.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => stopChild(child));
    const ready = await firstLine(child);
    expect(ready).toMatch(new RegExp(`^ready ${mode} `));
    await a.publish('rfq.open', { rfq_id: 'from-parent' });
    await replies.until(() => replies.got.length === 1, 10_000);
    expect(replies.got[0]!.p).toEqual({ echo: { rfq_id: 'from-parent' }, pid: child.pid });
    expect(replies.got[0]!.m.origin).toBe(ready.split(' ')[2]);
    expect(await stopChild(child)).toBe(0);
  });
});

describe('bus on postgres: listener loss', () => {
  it('reconnects the LISTEN client after its backend is terminated; ping recovers and delivery resumes', async () => {
    const prefix = uniquePrefix('busreconn');
    const errors: string[] = [];
    const a = await open('postgres', prefix);
    const b = await open('postgres', prefix, (_e, ctx) => errors.push(ctx));
    const atB = recorder(b, 'rfq.open');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and query = $1`,
      [`LISTEN "${busChannel(prefix)}"`],
    );
    expect(rows).toHaveLength(2);
    // Terminate both listeners; b's reconnect is what we watch.
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)', [rows.map((r) => r.pid)]);
    await expect.poll(() => errors.includes('pg bus listener'), { timeout: 5000 }).toBe(true);
    await expect
      .poll(
        () =>
          b.ping().then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toBe('up');
    await a.publish('rfq.open', { after: 'reconnect' });
    await atB.until(() => atB.got.length === 1);
    expect(atB.payloads()).toEqual([{ after: 'reconnect' }]);
  });
});

describe('bus on postgres: the LISTEN connection (DATABASE_LISTEN_URL)', () => {
  it('listens on DATABASE_LISTEN_URL; refuses to start when that connection does not receive what the pool publishes', async () => {
    const prefix = uniquePrefix('buslisten');
    // A listener that never hears the publishing pool's NOTIFY, as behind a transaction-mode pooler: here,
    // another database (NOTIFY is per database), which is the same misconfiguration to refuse.
    const other = await createTestDatabase('buslistenother');
    cleanups.push(() => other.drop());
    await expect(createBus({ prefix, databaseUrl: db.url, listenUrl: other.url })).rejects.toThrow(
      /did not receive a probe notification.*transaction mode.*DATABASE_LISTEN_URL/,
    );
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    const listening = () =>
      admin
        .query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where application_name = 'crfq-listen' and query = $1`, [
          `LISTEN "${busChannel(prefix)}"`,
        ])
        .then((r) => r.rows[0]!.n);
    // The same database through its own URL: the listener is that connection, and delivery works.
    const bus = await createBus({ prefix, databaseUrl: db.url, listenUrl: `${db.url}?application_name=crfq-listen` });
    cleanups.push(() => bus.close());
    const peer = await open('postgres', prefix);
    const got = recorder(bus, 'rfq.open');
    expect(await listening()).toBe(1);
    await peer.publish('rfq.open', { via: 'listen url' });
    await got.until(() => got.got.length === 1);
    expect(got.payloads()).toEqual([{ via: 'listen url' }]);
  }, 60_000);
});

describe('bus on redis: subscriber loss', () => {
  it('resubscribes after its connection is killed; delivery resumes', async () => {
    const prefix = uniquePrefix('busrkill');
    const errors: string[] = [];
    const a = await open('redis', prefix);
    const b = await open('redis', prefix, (_e, ctx) => errors.push(ctx));
    const atB = recorder(b, 'rfq.open');
    const admin = new Redis(TEST_REDIS_URL);
    cleanups.push(async () => admin.disconnect());
    const list = String(await admin.client('LIST'));
    const subs = list.split('\n').filter((l) => l.includes(` name=${busChannel(prefix)}-sub `));
    expect(subs).toHaveLength(2);
    // Kill b's subscriber only: the one that is not a's (a's is older, so its id is smaller).
    const ids = subs.map((l) => Number(/\bid=(\d+)/.exec(l)![1])).sort((x, y) => x - y);
    expect(await admin.client('KILL', 'ID', String(ids[1]))).toBe(1); // clients killed
    const subIds = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((l) => l.includes(` name=${busChannel(prefix)}-sub `))
        .map((l) => Number(/\bid=(\d+)/.exec(l)![1]));
    // b reconnected: a new subscriber connection replaced the killed one.
    await expect.poll(async () => (await subIds()).filter((id) => !ids.includes(id)).length, { timeout: 10_000 }).toBe(1);
    await expect
      .poll(
        () =>
          b.ping().then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 10_000, interval: 50 },
      )
      .toBe('up');
    await expect
      .poll(
        async () => {
          await a.publish('rfq.open', { after: 'kill' });
          return atB.got.length > 0;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(true);
    expect(atB.payloads()[0]).toEqual({ after: 'kill' });
  });
});

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('bus peer did not start')), 20_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`bus peer exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
