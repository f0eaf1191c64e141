// PostgreSQL LISTEN/NOTIFY for the PostgreSQL-only deployment. A dedicated client LISTENs (and is
// reconnected with backoff if it drops: messages in between are lost, as at-most-once allows); a
// one-connection pool sends `select pg_notify()` in autocommit, so notifies keep their order (FIFO per
// publisher) and never ride inside a money transaction.
//
// LISTEN needs a session of its own: behind a pooler in transaction mode (PgBouncer `pool_mode =
// transaction`, the "pooled" endpoints of managed PostgreSQL) the LISTEN is made on whichever server
// connection ran that statement, which goes back to the pool, and notifications never reach this client.
// So DATABASE_LISTEN_URL (default DATABASE_URL) may name a direct connection for the listener alone, and
// start-up proves the path: a probe notification sent through the publishing pool must come back to the
// listener within LISTEN_PROBE_TIMEOUT_MS, else the bus refuses to start with a message saying why
// (docs/operations.md, "Managed PostgreSQL and Redis"). Behind PgBouncer in transaction mode the refusal is
// at once: the publishing connection's statement usually runs on the very server session that made the
// LISTEN (PgBouncer reuses the most recently released one), so the probe comes back to the publisher
// instead, which only a pooled session can explain (src/deployments-managed.int.test.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { busChannel, createHub, type Bus, type BusOptions } from './bus.js';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;
/** How long start-up waits for its probe notification (a direct connection answers in milliseconds). */
export const LISTEN_PROBE_TIMEOUT_MS = 10_000;
/** Payloads of the start-up probe: not envelopes, ignored by every listener. */
const PROBE_PREFIX = 'crfq-listen-probe:';

/** Why the probe failed: it never arrived, or it arrived on the publishing connection (one pooled server session). */
export type ProbeFailure = 'timeout' | 'same-session';

export class ListenNotDelivered extends Error {
  constructor(
    channel: string,
    readonly failure: ProbeFailure = 'timeout',
  ) {
    super(
      `the PostgreSQL bus's LISTEN connection did not receive a probe notification on "${channel}" ` +
        (failure === 'timeout'
          ? `within ${LISTEN_PROBE_TIMEOUT_MS} ms: `
          : 'but the publishing connection did: both ran on one pooled server session (a pooler in transaction mode). ') +
        'LISTEN needs a direct (session) connection to the same database as DATABASE_URL, and a pooler in transaction mode ' +
        '(PgBouncer pool_mode=transaction, a managed "pooled" endpoint) cannot hold one. Set DATABASE_LISTEN_URL to a direct ' +
        'connection (or a session-mode pooler) to that database, or use Redis (REDIS_URL) for the bus (docs/operations.md, "Managed PostgreSQL and Redis")',
    );
    this.name = 'ListenNotDelivered';
  }
}

export async function createPgBus(opts: BusOptions & { databaseUrl: string; listenUrl?: string | undefined }): Promise<Bus> {
  // NOTIFY is per database already; the envelopes carry the deployment id all the same.
  const hub = createHub(opts.onError, opts.deploymentId ?? '');
  const channel = busChannel(opts.prefix);
  const { pool, probes } = openPublishPool(opts.databaseUrl, hub);
  const listener = createListener(opts.listenUrl ?? opts.databaseUrl, channel, hub, { pool, probes });
  try {
    await listener.start();
  } catch (err) {
    const l = listener.stop(); // set by start() when it got that far
    await Promise.allSettled([l?.end(), pool.end()]);
    throw err;
  }
  return {
    kind: 'postgres',
    instanceId: hub.instanceId,
    async publish(topic, payload) {
      const raw = hub.prepare(topic, payload);
      try {
        await pool.query('select pg_notify($1, $2)', [channel, raw]);
      } catch (err) {
        hub.onError(err, `pg bus publish ${topic}`);
      }
    },
    subscribe: (topic, fn) => hub.subscribe(topic, fn),
    async ping() {
      hub.assertOpen();
      const l = listener.current();
      if (!l) throw new Error('pg bus listener is reconnecting');
      await l.query('select 1');
      await pool.query('select 1');
    },
    async close() {
      const l = listener.stop();
      hub.closeHub();
      await Promise.allSettled([l?.end(), pool.end()]);
    },
  };
}

type Hub = ReturnType<typeof createHub>;
/** Start-up probes in flight, by payload. */
type Probes = Map<string, { arrived: () => void; misrouted: () => void }>;

/** The one-connection publishing pool; a probe it hears itself ran on the LISTEN's own server session. */
function openPublishPool(databaseUrl: string, hub: Hub): { pool: pg.Pool; probes: Probes } {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, keepAlive: true });
  pool.on('error', (err) => hub.onError(err, 'pg bus pool (idle client)'));
  const probes: Probes = new Map();
  // A probe heard by the publishing connection ran on the LISTEN's own server session: a transaction-mode pooler.
  pool.on('connect', (client) =>
    client.on('notification', (msg) => {
      if (msg.payload !== undefined) probes.get(msg.payload)?.misrouted();
    }),
  );
  return { pool, probes };
}

interface Listener {
  /** Connects and LISTENs, proving the path first (probe), so the bus's LISTEN stays the last statement. */
  start(): Promise<void>;
  /** The connected client, or null while reconnecting. */
  current(): pg.Client | null;
  /** No more reconnects; detaches and returns the client for the caller to end. */
  stop(): pg.Client | null;
}

/** The dedicated LISTEN client, reconnected with backoff when it drops. */
function createListener(url: string, channel: string, hub: Hub, { pool, probes }: { pool: pg.Pool; probes: Probes }): Listener {
  let listener: pg.Client | null = null;
  let closing = false;
  let retryMs = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | null = null;

  /** Connects and LISTENs; at start-up (`probeFirst`) proves the path first, so the bus's LISTEN stays the last statement. */
  const listen = async (probeFirst = false): Promise<void> => {
    const client = new pg.Client({ connectionString: url, keepAlive: true });
    client.on('notification', (msg) => {
      if (msg.payload === undefined) return;
      if (msg.payload.startsWith(PROBE_PREFIX)) return probes.get(msg.payload)?.arrived();
      if (msg.channel === channel) hub.receive(msg.payload);
    });
    const lost = (err?: unknown) => {
      if (listener !== client) return;
      listener = null;
      client.end().catch(() => {});
      if (err) hub.onError(err, 'pg bus listener');
      if (!closing) schedule();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    try {
      if (probeFirst) await probeListen(client, pool, probes);
      // The prefix is [A-Za-z0-9_-] (config), so quoting makes a safe, case-preserving identifier.
      await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    listener = client;
    retryMs = RECONNECT_MIN_MS;
  };
  const schedule = () => {
    if (timer || closing) return;
    timer = setTimeout(() => {
      timer = null;
      listen().catch((err) => {
        hub.onError(err, 'pg bus listener reconnect');
        retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
        schedule();
      });
    }, retryMs);
    timer.unref();
  };

  return {
    start: () => listen(true),
    current: () => listener,
    stop() {
      closing = true;
      if (timer) clearTimeout(timer);
      const l = listener;
      listener = null;
      return l;
    },
  };
}

/**
 * A notification through the publishing pool comes back to the listener, or ListenNotDelivered. It goes on a
 * channel of its own that only this listener LISTENs on: a pooled server session may still LISTEN on the bus's
 * channel for a process that has gone (a transaction-mode pooler never resets it), and would hear the bus's
 * traffic, but only a session that ran this very LISTEN can hear the probe.
 */
async function probeListen(client: pg.Client, pool: pg.Pool, probes: Probes): Promise<void> {
  const probeChannel = `crfq_probe_${randomBytes(8).toString('hex')}`;
  const payload = PROBE_PREFIX + randomUUID();
  let timeout: NodeJS.Timeout | undefined;
  const arrived = new Promise<void>((resolve, reject) => {
    probes.set(payload, { arrived: resolve, misrouted: () => reject(new ListenNotDelivered(probeChannel, 'same-session')) });
    timeout = setTimeout(() => reject(new ListenNotDelivered(probeChannel)), LISTEN_PROBE_TIMEOUT_MS);
  });
  arrived.catch(() => undefined); // awaited below, unless the LISTEN itself fails
  try {
    await client.query(`LISTEN "${probeChannel}"`);
    await pool.query('select pg_notify($1, $2)', [probeChannel, payload]);
    await arrived;
    await client.query(`UNLISTEN "${probeChannel}"`);
  } finally {
    clearTimeout(timeout);
    probes.delete(payload);
  }
}
