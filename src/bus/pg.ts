// PostgreSQL LISTEN/NOTIFY for the PostgreSQL-only deployment. A dedicated client LISTENs (and is
// reconnected with backoff if it drops: messages in between are lost, as at-most-once allows); a
// one-connection pool sends `select pg_notify()` in autocommit, so notifies keep their order (FIFO per
// publisher) and never ride inside a money transaction.
import pg from 'pg';
import { busChannel, createHub, type Bus, type BusOptions } from './bus.js';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;

export async function createPgBus(opts: BusOptions & { databaseUrl: string }): Promise<Bus> {
  // NOTIFY is per database already; the envelopes carry the deployment id all the same.
  const hub = createHub(opts.onError, opts.deploymentId ?? '');
  const channel = busChannel(opts.prefix);
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 1, keepAlive: true });
  pool.on('error', (err) => hub.onError(err, 'pg bus pool (idle client)'));

  let listener: pg.Client | null = null;
  let closing = false;
  let retryMs = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | null = null;

  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true });
    client.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload !== undefined) hub.receive(msg.payload);
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

  try {
    await listen();
  } catch (err) {
    await pool.end();
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
      if (!listener) throw new Error('pg bus listener is reconnecting');
      await listener.query('select 1');
      await pool.query('select 1');
    },
    async close() {
      closing = true;
      hub.closeHub();
      if (timer) clearTimeout(timer);
      const l = listener;
      listener = null;
      await Promise.allSettled([l?.end(), pool.end()]);
    },
  };
}
