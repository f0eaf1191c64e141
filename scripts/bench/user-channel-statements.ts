// bench:user-channel, part 1 (docs/performance.md "User channel"): the fill path's SQL statements and time per
// best-mode fill (create, one quote, close; in-process, as src/domain/rfq/fill-path.db.test.ts counts them) with the
// user event log's triggers (Migration20261130010000_user_events) and with them disabled, interleaved in rounds on one
// migrated database of its own: the event record must add no statement (no round trip), only work inside them.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../src/config/load.js';
import { db } from '../../src/db/schema.js';
import { ensureWindows } from '../../src/domain/markets/markets.js';
import { closeRfq, createRfq, submitQuote } from '../../src/domain/rfq/api.js';
import { rfqDepsOf, type RfqDeps } from '../../src/domain/rfq/deps.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { fundedUser } from '../../src/testing/funding.js';
import { migratedOrm } from '../../src/testing/orm.js';
import { percentile } from './harness.js';
import { countStatements } from '../../src/testing/statement-counter.js';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { boxCpu, boxSnapshot } from './box-cpu.js';

const TAKER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MM = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

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
  const t = await migratedOrm('uchstmts');
  try {
    let clock = Date.now();
    const T0 = Math.floor(clock / 300_000) * 300_000 + 300_000;
    clock = T0 + 1000;
    const config = loadConfig({ RFQ_MAX_OPEN_PER_USER: '10000' });
    const deps: RfqDeps = { ...rfqDepsOf(config), now: () => clock };
    const domain = rfqDomainOf(config.rfq);
    const em = () => t.orm.em.fork();
    const taker = await fundedUser(em, TAKER.address.toLowerCase(), 10n ** 15n);
    await fundedUser(em, MM.address.toLowerCase(), 10n ** 15n);
    await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 300, startAtMs: T0 + 300_000 }]);
    const market = Number(
      (await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow()).market_id,
    );
    const sql = new pg.Client({ connectionString: t.db.url });
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
    let nonce = 0;
    const fill = async (): Promise<{ stmts: number; ms: number }> => {
      const o: RfqOrderJson = {
        taker: TAKER.address,
        legs: [{ market_id: market, direction: 'up' }],
        stake_micros: 1_000_000,
        min_odds_bps: 15_000,
        order_type: 'FOK',
        nonce: ++nonce,
        deadline_ms: clock + 30_000,
      };
      const signature = await TAKER.signTypedData(orderTypedData(domain, o));
      const s0 = statementsSent();
      let t0 = performance.now();
      const r = await inTransaction(em(), (tx) =>
        createRfq(tx, deps, {
          userId: taker,
          sessionAddress: TAKER.address,
          order: o,
          signature,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
      let took = performance.now() - t0;
      const q = {
        rfq_id: r.rfq.rfq.id,
        maker: MM.address,
        odds_bps: 19_000,
        max_fill_micros: 1_000_000_000,
        valid_until_ms: clock + 20_000,
      };
      const qs = await MM.signTypedData(quoteTypedData(domain, q));
      t0 = performance.now();
      await submitQuote(em(), deps, MM.address, { ...q, signature: qs });
      clock += 600;
      const c = await closeRfq(em(), deps, r.rfq.rfq.id);
      clock -= 600;
      took += performance.now() - t0;
      if (c.rfq.rfq.status !== 'filled') throw new Error(`not filled: ${c.rfq.rfq.status}`);
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
    await t.close();
  }
}
