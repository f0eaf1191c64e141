// bench:user-channel, part 1 (docs/performance.md "User channel"): the fill path's SQL statements and time per
// best-mode fill (create, one quote, close; in-process, as src/domain/rfq/fill-path.db.test.ts counts them) with the
// user event log's triggers (Migration20261130010000_user_events) and with them disabled, interleaved in rounds on one
// migrated database of its own (scripts/bench/in-process-fill.ts): the event record must add no statement (no round trip), only
// work inside them.
import pg from 'pg';
import { percentile } from './harness.js';
import { countStatements } from '../../src/testing/statement-counter.js';
import { boxCpu, boxSnapshot } from './box-cpu.js';
import { inProcessFills } from './in-process-fill.js';

const statementsSent = countStatements();

export interface FillCost {
  /** Statements per fill (create + quote + close), p50 and max. */
  statements: number;
  maxStatements: number;
  /** Wall time of create + quote + close, p50 ms (order and quote signing excluded). */
  p50Ms: number;
  /** User events recorded per fill. */
  events: number;
  /** PostgreSQL's CPU per fill (every postgres process on this host, read from /proc over each round). */
  postgresMs: number;
  n: number;
}

/** `n` fills per side, in rounds of 25 alternating triggers on / off. */
export async function statementsPerFill(n: number): Promise<{ with: FillCost; without: FillCost }> {
  const fills = await inProcessFills('uchstmts');
  try {
    const sql = new pg.Client({ connectionString: fills.t.db.url });
    await sql.connect();
    const triggers = (
      await sql.query<{ tbl: string; name: string }>(
        `select tgrelid::regclass::text as tbl, tgname as name from pg_trigger where tgname like '%user_events%'`,
      )
    ).rows;
    if (triggers.length === 0) throw new Error('no user event triggers found');
    const setTriggers = async (on: boolean) => {
      for (const tr of triggers) await sql.query(`alter table ${tr.tbl} ${on ? 'enable' : 'disable'} trigger ${tr.name}`);
    };
    const eventCount = async () => Number((await sql.query('select count(*)::int as n from user_events')).rows[0].n);
    const fill = async (): Promise<{ stmts: number; ms: number }> => {
      const signed = await fills.signOrder();
      const s0 = statementsSent();
      let t0 = performance.now();
      const rfqId = await fills.create(signed);
      let took = performance.now() - t0;
      const q = await fills.signQuote(rfqId);
      t0 = performance.now();
      await fills.quote(q);
      await fills.close(rfqId);
      took += performance.now() - t0;
      return { stmts: statementsSent() - s0, ms: took };
    };
    const sides = {
      with: { stmts: [] as number[], ms: [] as number[], events: 0, pg: 0 },
      without: { stmts: [] as number[], ms: [] as number[], events: 0, pg: 0 },
    };
    for (let i = 0; i < 10; i++) await fill(); // warm-up
    for (let done = 0; done < n; done += 25) {
      for (const side of ['with', 'without'] as const) {
        await setTriggers(side === 'with');
        const e0 = await eventCount();
        const box0 = boxSnapshot();
        for (let k = 0; k < 25; k++) {
          const f = await fill();
          sides[side].stmts.push(f.stmts);
          sides[side].ms.push(f.ms);
        }
        sides[side].pg += boxCpu(box0, boxSnapshot(), {}).groups.find((g) => g.name === 'postgres')?.ms ?? 0;
        sides[side].events += (await eventCount()) - e0;
      }
    }
    await setTriggers(true);
    await sql.end();
    const cost = (s: (typeof sides)['with']): FillCost => {
      const st = [...s.stmts].sort((a, b) => a - b);
      return {
        statements: percentile(st, 50),
        maxStatements: st.at(-1)!,
        p50Ms: percentile(
          [...s.ms].sort((a, b) => a - b),
          50,
        ),
        events: s.events / s.stmts.length,
        postgresMs: s.pg / s.stmts.length,
        n: s.stmts.length,
      };
    };
    return { with: cost(sides.with), without: cost(sides.without) };
  } finally {
    await fills.stop();
  }
}
