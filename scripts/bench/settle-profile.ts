// bench:settle --profile: where settleWindow's time goes. Wraps the methods of the repositories it calls
// (each one is one or two SQL statements awaited in turn) with a timer; what is left of a batch's wall time
// is JavaScript (building maps, bigint sums, events) plus BEGIN/COMMIT. Timing wrappers only: the statements
// run unchanged against the real database.
import { LedgerRepository } from '../../src/db/repositories/ledger.repository.js';
import { PositionsRepository } from '../../src/db/repositories/positions.repository.js';

export interface Profile {
  /** Total ms and calls per repository method. */
  report(): Array<{ method: string; ms: number; calls: number }>;
  reset(): void;
}

export function profileRepositories(): Profile {
  const totals = new Map<string, { ms: number; calls: number }>();
  const wrap = (proto: object, cls: string) => {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const original = (proto as Record<string, unknown>)[name];
      if (typeof original !== 'function') continue;
      (proto as Record<string, unknown>)[name] = async function (this: unknown, ...args: unknown[]) {
        const t = performance.now();
        try {
          return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
        } finally {
          const key = `${cls}.${name}`;
          const s = totals.get(key) ?? { ms: 0, calls: 0 };
          s.ms += performance.now() - t;
          s.calls += 1;
          totals.set(key, s);
        }
      };
    }
  };
  wrap(PositionsRepository.prototype, 'PositionsRepository');
  wrap(LedgerRepository.prototype, 'LedgerRepository');
  return {
    report: () => [...totals.entries()].map(([method, s]) => ({ method, ...s })).sort((a, b) => b.ms - a.ms),
    reset: () => totals.clear(),
  };
}
