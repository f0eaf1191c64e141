// The market-maker WebSocket cap per client IP (MM_MAX_CONNECTIONS_PER_IP), counted across every API
// process, on top of each process's own slots (LocalConnectionSlots in limits.ts: total and unauthenticated
// per process). A shared slot is a lease with an expiry that its process renews while the connection is
// open, so the slots of a crashed process free themselves within SLOT_TTL_MS.
//   REDIS_URL set   -> a sorted set per IP in Redis (member = process:connection, score = lease expiry)
//   DATABASE_URL    -> ws_connection_slots rows (Migration20261123030000_shared_limits)
//   embedded        -> none (one process: its own slots are the cap)
// When the shared store fails or is slow, the connection is counted by its own process only (logged).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { withDeadline } from '../jobs/queue-gate.js';
import { repos } from '../db/repos.js';

export const SLOT_TTL_MS = 30_000;
const STORE_DEADLINE_MS = 1_000;

/** Release function of a taken slot (idempotent). */
export type Release = () => void;

export interface SharedConnectionCap {
  /** A slot for `ip`, or null when `ip` already holds `max` connections (across processes). */
  acquire(ip: string): Promise<Release | null>;
  close(): Promise<void>;
}

interface SharedBackend {
  take(ip: string, holder: string, max: number, ttlMs: number): Promise<boolean>;
  renew(holders: Array<{ ip: string; holder: string }>, ttlMs: number): Promise<void>;
  drop(ip: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** No cross-process cap (embedded: one process). */
export const noSharedCap: SharedConnectionCap = {
  acquire: async () => () => undefined,
  close: async () => undefined,
};

export interface SlotsOptions {
  deployment: 'embedded' | 'postgres' | 'production';
  redisUrl: string | undefined;
  prefix: string;
  orm: Orm;
  max: number;
  log: Logger;
  ttlMs?: number;
}

export function createSharedConnectionCap(opts: SlotsOptions): SharedConnectionCap {
  if (opts.deployment === 'production' && opts.redisUrl) return sharedSlots(redisBackend(opts.redisUrl, opts.prefix), opts);
  if (opts.deployment === 'postgres') return sharedSlots(postgresBackend(opts.orm), opts);
  return noSharedCap;
}

function sharedSlots(backend: SharedBackend, opts: SlotsOptions): SharedConnectionCap {
  const ttlMs = opts.ttlMs ?? SLOT_TTL_MS;
  const processId = randomUUID();
  const held = new Map<string, string>(); // holder -> ip
  let lastWarnMs = 0;
  const warn = (err: unknown) => {
    if (Date.now() - lastWarnMs < 10_000) return;
    lastWarnMs = Date.now();
    opts.log.warn({ err }, 'WebSocket connection-slot store unavailable: counting in this process until it answers');
  };
  const timer = setInterval(
    () => {
      const list = [...held].map(([holder, ip]) => ({ ip, holder }));
      if (list.length) void withDeadline(backend.renew(list, ttlMs), STORE_DEADLINE_MS * 3, 'renew slots').catch(warn);
    },
    Math.floor(ttlMs / 3),
  );
  timer.unref();
  return {
    async acquire(ip) {
      const holder = `${processId}:${randomUUID()}`;
      let ok: boolean;
      try {
        ok = await withDeadline(backend.take(ip, holder, opts.max, ttlMs), STORE_DEADLINE_MS, 'take slot');
      } catch (err) {
        warn(err);
        return () => undefined; // this process's own slots still bound it
      }
      if (!ok) return null;
      held.set(holder, ip);
      return () => {
        if (!held.delete(holder)) return;
        void backend.drop(ip, holder).catch(warn); // if lost, the lease expires within ttlMs
      };
    },
    async close() {
      clearInterval(timer);
      await Promise.all([...held].map(([holder, ip]) => backend.drop(ip, holder).catch(() => undefined)));
      held.clear();
      await backend.close();
    },
  };
}

const TAKE_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

function redisBackend(url: string, prefix: string): SharedBackend {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  const key = (ip: string) => `${prefix}:ws-slots:${ip}`;
  return {
    async take(ip, holder, max, ttlMs) {
      return (await redis.eval(TAKE_LUA, 1, key(ip), Date.now(), ttlMs, max, holder)) === 1;
    },
    async renew(list, ttlMs) {
      const until = Date.now() + ttlMs;
      const p = redis.pipeline();
      for (const { ip, holder } of list) {
        p.zadd(key(ip), 'XX', until, holder);
        p.pexpire(key(ip), ttlMs);
      }
      await p.exec();
    },
    async drop(ip, holder) {
      await redis.zrem(key(ip), holder);
    },
    close: async () => void redis.disconnect(),
  };
}

function postgresBackend(orm: Orm): SharedBackend {
  return {
    async take(ip, holder, max, ttlMs) {
      // One transaction: takeSlot's advisory lock on the IP is held until it commits.
      // Decided in SQL (SharedLimitsRepository.takeSlot): a slot is taken only while the IP holds fewer than `max` live ones.
      return orm.em
        .fork()
        .transactional((em) => repos(em).sharedLimits.takeSlot({ ip, holder, process: holder.split(':')[0]!, ttlMs, max }));
    },
    async renew(list, ttlMs) {
      await repos(orm.em.fork()).sharedLimits.renewSlots(list[0]!.holder.split(':')[0]!, ttlMs);
    },
    async drop(ip, holder) {
      await repos(orm.em.fork()).sharedLimits.dropSlot(ip, holder);
    },
    close: async () => undefined,
  };
}
