// Cross-process notifications (docs/trading.md, "The bus"). The database is the source of truth; the bus only cuts
// latency: at-most-once, FIFO per publisher, and nothing may depend on a message arriving. Publish
// after commit, never inside a money transaction (PostgreSQL's NOTIFY serialises notifying commits).
// The backend is chosen like the queue backend (src/jobs/queue-backend.ts):
//   REDIS_URL set       -> Redis pub/sub (a duplicate() connection subscribes)
//   DATABASE_URL only   -> PostgreSQL LISTEN on a dedicated client, pg_notify() on a pool connection
//   neither (embedded)  -> in-process EventEmitter
// Every backend delivers to this process's subscribers first, synchronously, and drops its own echo
// (the envelope carries the publishing instance's id).
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';

export const BUS_TOPICS = [
  'rfq.open',
  'rfq.closed',
  'rfq.quote',
  'mm.event',
  'mm.removed',
  'operation.settled',
  'contests.changed',
  'sessions.changed',
  'user.events',
] as const;
export type BusTopic = (typeof BUS_TOPICS)[number];

/** Largest envelope (UTF-8 JSON) a publish accepts, on every backend: PostgreSQL NOTIFY stops at 8000 bytes. */
export const MAX_BUS_MESSAGE_BYTES = 7 * 1024;

export interface BusMessageMeta {
  /** Instance id of the publisher. */
  origin: string;
  /** True when this process published it. */
  local: boolean;
}
export type BusHandler = (payload: unknown, meta: BusMessageMeta) => void;

export interface Bus {
  readonly kind: 'redis' | 'postgres' | 'local';
  readonly instanceId: string;
  /**
   * Delivers `payload` (JSON-serialisable) to this process's subscribers of `topic`, then to every other
   * instance. Rejects only for a caller error (unknown topic, oversized payload, closed bus); a transport
   * failure is reported to `onError` and the message is lost, as at-most-once allows.
   */
  publish(topic: BusTopic, payload: unknown): Promise<void>;
  /** Returns the unsubscribe function. Handlers get the parsed JSON, the same on every instance. */
  subscribe(topic: BusTopic, fn: BusHandler): () => void;
  /** Resolves when the bus can send and receive (for /readyz); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class BusPayloadTooLarge extends Error {
  constructor(
    readonly topic: string,
    readonly bytes: number,
  ) {
    super(`bus message on ${topic} is ${bytes} bytes; the limit is ${MAX_BUS_MESSAGE_BYTES} (send an id and let subscribers read the row)`);
    this.name = 'BusPayloadTooLarge';
  }
}

export interface BusOptions {
  /** QUEUE_PREFIX: deployments and test runs sharing one server do not hear each other. */
  prefix: string;
  /**
   * The deployment's id (src/bus/deployment.ts: one random id per database). Redis pub/sub ignores the
   * database index, so the Redis channel is scoped to the index and this id, and every envelope carries
   * the scope: two deployments on one Redis server never hear each other, whatever their prefixes.
   */
  deploymentId?: string | undefined;
  redisUrl?: string | undefined;
  databaseUrl?: string | undefined;
  /** DATABASE_LISTEN_URL: the PostgreSQL bus's LISTEN connection (a direct session); default databaseUrl. */
  listenUrl?: string | undefined;
  /** Transport errors and throwing handlers; the default is silence (the bus never throws at its callers). */
  onError?: (err: unknown, context: string) => void;
}

/** Channel of the prefix on Redis and PostgreSQL: one channel, the topic is in the envelope. */
export function busChannel(prefix: string): string {
  return `${prefix}_bus`;
}

interface Envelope {
  i: string;
  t: BusTopic;
  p: unknown;
  /** The deployment scope; messages of another scope are dropped. */
  d?: string;
}

/** The part every backend shares: envelopes, local delivery, echo suppression. */
export interface BusHub {
  readonly instanceId: string;
  /** Checks the topic and size; delivers locally; returns the wire form for the transport. */
  prepare(topic: BusTopic, payload: unknown): string;
  /** A message from the transport: dropped if it is our own echo or malformed, else delivered. */
  receive(raw: string): void;
  subscribe(topic: BusTopic, fn: BusHandler): () => void;
  assertOpen(): void;
  closeHub(): void;
  onError(err: unknown, context: string): void;
}

/** `scope`: the deployment scope every envelope carries; a received envelope of another scope is dropped. */
export function createHub(onError: BusOptions['onError'], scope = ''): BusHub {
  const instanceId = randomUUID();
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  let closed = false;
  const report = (err: unknown, context: string) => onError?.(err, context);
  const deliver = (topic: string, payload: unknown, meta: BusMessageMeta) => {
    for (const fn of emitter.listeners(topic) as BusHandler[]) {
      try {
        fn(payload, meta);
      } catch (err) {
        report(err, `bus handler for ${topic}`);
      }
    }
  };
  return {
    instanceId,
    prepare(topic, payload) {
      this.assertOpen();
      if (!(BUS_TOPICS as readonly string[]).includes(topic)) throw new TypeError(`unknown bus topic ${String(topic)}`);
      const raw = JSON.stringify({ i: instanceId, t: topic, p: payload, ...(scope ? { d: scope } : {}) } satisfies Envelope);
      const bytes = Buffer.byteLength(raw, 'utf8');
      if (bytes > MAX_BUS_MESSAGE_BYTES) throw new BusPayloadTooLarge(topic, bytes);
      // Parse back so local subscribers see exactly what remote ones see (no Dates, no shared objects).
      if (emitter.listenerCount(topic)) deliver(topic, (JSON.parse(raw) as Envelope).p, { origin: instanceId, local: true });
      return raw;
    },
    receive(raw) {
      if (closed) return;
      let env: Envelope;
      try {
        env = JSON.parse(raw) as Envelope;
      } catch (err) {
        return report(err, 'malformed bus message');
      }
      if (!env || typeof env.i !== 'string' || typeof env.t !== 'string' || env.i === instanceId) return;
      if ((env.d ?? '') !== scope)
        return report(new Error(`bus message of another deployment (${String(env.d)}) dropped`), 'foreign bus message');
      deliver(env.t, env.p, { origin: env.i, local: false });
    },
    subscribe(topic, fn) {
      this.assertOpen();
      emitter.on(topic, fn);
      return () => void emitter.off(topic, fn);
    },
    assertOpen() {
      if (closed) throw new Error('the bus is closed');
    },
    closeHub() {
      closed = true;
      emitter.removeAllListeners();
    },
    onError: report,
  };
}
