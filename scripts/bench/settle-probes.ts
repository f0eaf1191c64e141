// bench:settle's side measurements (settle.ts prints them under its table): the bus alone, sequential vs
// pipelined publishes, and what one ledger posting's COMMIT costs by its number of entries.
import pg from 'pg';
import type { Bus } from '../../src/bus/bus.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function busLine(bus: Bus, N: number, ROUNDS: number): Promise<string> {
  // The bus alone: N position_settled frames published as the worker does (one awaited publish after the
  // other) and pipelined (all sent, then awaited together: ioredis writes them in call order, so FIFO holds).
  const frames = Array.from({ length: N }, (_, i) => ({
    topic: 'mm.event' as const,
    wallet: `0x${String(i % 10).padStart(40, '0')}`,
    frame: {
      type: 'position_settled',
      position_id: crypto.randomUUID(),
      rfq_id: crypto.randomUUID(),
      outcome: 'won',
      maker_pnl_micros: '-1000000',
      settled_at_ms: Date.now(),
    },
  }));
  const busRates: Record<string, number[]> = { sequential: [], pipelined: [] };
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    for (const f of frames) await bus.publish(f.topic, f);
    busRates.sequential!.push(N / ((performance.now() - t) / 1000));
    t = performance.now();
    await Promise.all(frames.map((f) => bus.publish(f.topic, f)));
    busRates.pipelined!.push(N / ((performance.now() - t) / 1000));
  }
  return (
    `Redis bus alone, ${N} position_settled frames: sequential awaits ${median(busRates.sequential!).toFixed(0)}/s, ` +
    `pipelined ${median(busRates.pipelined!).toFixed(0)}/s (median of ${ROUNDS})`
  );
}

/** `copy()` makes a fresh database from the seeded template and returns its URL; `drop()` removes it. */
export async function commitLine(copy: () => Promise<string>, drop: () => Promise<void>): Promise<string> {
  // What one posting's COMMIT costs by its number of entries (a settlement batch posts ~2 entries per distinct
  // taker + 2 per maker): the deferred ledger_entries_balanced trigger fires per entry row and each firing sums
  // every entry of the transaction, so the check is quadratic in the entries of one posting.
  const probeUrl = await copy();
  const probe = new pg.Client({ connectionString: probeUrl });
  probe.on('error', () => undefined);
  await probe.connect();
  const commits: string[] = [];
  try {
    for (const entries of [250, 500, 1000, 2000, 4000]) {
      await probe.query('begin');
      const tx = crypto.randomUUID();
      await probe.query(`insert into ledger_transactions (id, kind, reference) values ($1, 'bench_probe', 'bench:settle')`, [tx]);
      await probe.query(
        `insert into ledger_entries (transaction_id, account_id, amount)
         select $1, a.id, case when g % 2 = 0 then 1 else -1 end from generate_series(1, $2::int) g
           join ledger_accounts a on a.kind = case when g % 2 = 0 then 'treasury' else 'settlement_clearing' end`,
        [tx, entries],
      );
      const t = performance.now();
      await probe.query('commit');
      commits.push(`${entries}: ${(performance.now() - t).toFixed(0)} ms`);
    }
  } finally {
    await probe.end();
    await drop();
  }
  return `COMMIT of one ledger posting by entries (deferred balanced check): ${commits.join(', ')}`;
}
