// The price sources' circuit shared by every process (src/domain/prices/circuit.ts, docs/prices.md "Blocks and
// bans"): after a 429 or 418 no process sends that source a request until its Retry-After passed.
//   REDIS_URL set -> a sorted set in Redis, <QUEUE_PREFIX>:price-circuit (member = source, score = open until, ms;
//                    ZADD GT: an opening only ever extends), reasons in the hash <QUEUE_PREFIX>:price-circuit-reason;
//                    each opening is also written to price_source_health, which the status endpoints read.
//   otherwise     -> price_source_health itself (PostgreSQL, or the embedded PGlite).
// When Redis does not answer, the database's record is read instead: the gate never fails open silently.
import { Redis } from 'ioredis';
import type { Em } from '../db/orm.js';
import { databaseCircuit, reportedCircuit, type CircuitReason, type CircuitState, type SourceCircuit } from '../domain/prices/circuit.js';

export interface PriceCircuit {
  circuit: SourceCircuit;
  close(): Promise<void>;
}

export interface PriceCircuitOptions {
  redisUrl: string | undefined;
  prefix: string;
  forkEm: () => Em;
}

function redisCircuit(redis: Redis, prefix: string): SourceCircuit {
  const zset = `${prefix}:price-circuit`;
  const reasons = `${prefix}:price-circuit-reason`;
  return {
    async state(source, nowMs): Promise<CircuitState | null> {
      const [[, score], [, reason]] = (await redis.multi().zscore(zset, source).hget(reasons, source).exec()) as [
        [unknown, string | null],
        [unknown, string | null],
      ];
      const untilMs = score === null ? 0 : Number(score);
      return untilMs > nowMs ? { untilMs, reason: (reason ?? 'rate_limited') as CircuitReason } : null;
    },
    async open(source, untilMs, reason) {
      const changed = await redis.zadd(zset, 'GT', 'CH', untilMs, source);
      // A fresh member is "changed" too (CH counts additions); an equal or shorter opening leaves both alone.
      if (Number(changed) > 0) await redis.hset(reasons, source, reason);
    },
  };
}

export function createPriceCircuit(opts: PriceCircuitOptions): PriceCircuit {
  const db = databaseCircuit(opts.forkEm);
  if (!opts.redisUrl) return { circuit: db, close: async () => undefined };
  const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', () => undefined); // a failed call falls back to the database below
  const primary = redisCircuit(redis, opts.prefix);
  const withFallback: SourceCircuit = {
    state: (source, nowMs) => primary.state(source, nowMs).catch(() => db.state(source, nowMs)),
    open: (source, untilMs, reason) => primary.open(source, untilMs, reason).catch(() => db.open(source, untilMs, reason)),
  };
  return { circuit: reportedCircuit(withFallback, db), close: async () => void redis.disconnect() };
}
