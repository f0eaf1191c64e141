// `npx tsx scripts/bench/rfq-close-profile.ts [n]`: the in-process cost of one best-mode RFQ, step by step
// (create, one quote, close), on a migrated database of its own: wall time per step (p50) and the SQL
// statements each sends (pg's Client.query counted). Where the close overhead of bench:rfq item 2 goes.
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { db } from '../../src/db/schema.js';
import { boxCpu, boxSnapshot, describePer, type BoxSnapshot } from './box-cpu.js';
import { ensureWindows } from '../../src/domain/markets/markets.js';
import { closeRfq, createRfq, submitQuote } from '../../src/domain/rfq/api.js';
import { rfqDepsOf, type RfqDeps } from '../../src/domain/rfq/deps.js';
import { loadConfig } from '../../src/config/load.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { migratedOrm } from '../../src/testing/orm.js';
import { fundedUser } from '../../src/testing/funding.js';
import { countStatements } from '../../src/testing/statement-counter.js';
import { inTransaction } from '../../src/db/unit-of-work.js';

const N = Number(process.argv[2] ?? 200);
const TAKER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MM = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/** With RFQ_PROFILE_SQL=1, the statements of the last RFQ are printed per step. */
const texts: string[] | undefined = process.env.RFQ_PROFILE_SQL === '1' ? [] : undefined;
const statementsSent = countStatements(texts ? (t) => texts.push(t) : undefined);

const t = await migratedOrm('rfqprofile');
let clock = Date.now();
const T0 = Math.floor(clock / 300_000) * 300_000 + 300_000;
clock = T0 + 1000;
// The service's RFQ settings (defaults), with room for every RFQ the run leaves open, and a pinned clock.
const config = loadConfig({ RFQ_MAX_OPEN_PER_USER: '10000' });
const deps: RfqDeps = { ...rfqDepsOf(config), now: () => clock };
const domain = rfqDomainOf(config.rfq);
const em = () => t.orm.em.fork();
const userWith = (address: string, funds: bigint) => fundedUser(em, address.toLowerCase(), funds);
const taker = await userWith(TAKER.address, 10n ** 15n);
await userWith(MM.address, 10n ** 15n);
await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 300, startAtMs: T0 + 300_000 }]);
const market = Number(
  (await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow()).market_id,
);

const steps: Record<string, { ms: number[]; stmts: number[] }> = {
  create: { ms: [], stmts: [] },
  quote: { ms: [], stmts: [] },
  close: { ms: [], stmts: [] },
};
/** Runs step `name` of RFQ `i`: recorded after the 20 warm-up RFQs, its statements printed for the last one. */
async function step<T>(name: string, f: () => Promise<T>, i: number): Promise<T> {
  const record = i >= 20;
  const s0 = statementsSent();
  if (texts) texts.length = 0;
  const t0 = performance.now();
  const r = await f();
  if (record) {
    steps[name]!.ms.push(performance.now() - t0);
    steps[name]!.stmts.push(statementsSent() - s0);
  }
  if (texts && i === N + 19) console.log(`${name}:\n  ${texts.join('\n  ')}`);
  return r;
}
let box0: BoxSnapshot | undefined;
for (let i = 0; i < N + 20; i++) {
  if (i === 20) box0 = boxSnapshot();
  const o: RfqOrderJson = {
    taker: TAKER.address,
    legs: [{ market_id: market, direction: 'up' }],
    stake_micros: 1_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK',
    nonce: i + 1,
    deadline_ms: clock + 30_000,
  };
  const signature = await TAKER.signTypedData(orderTypedData(domain, o));
  const r = await step(
    'create',
    () =>
      inTransaction(em(), (tx) =>
        createRfq(tx, deps, {
          userId: taker,
          sessionAddress: TAKER.address,
          order: o,
          signature,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      ),
    i,
  );
  const q = { rfq_id: r.rfq.rfq.id, maker: MM.address, odds_bps: 19_000, max_fill_micros: 1_000_000_000, valid_until_ms: clock + 20_000 };
  const qs = await MM.signTypedData(quoteTypedData(domain, q));
  await step('quote', () => submitQuote(em(), deps, MM.address, { ...q, signature: qs }), i);
  clock += 600;
  const c = await step('close', () => closeRfq(em(), deps, r.rfq.rfq.id), i);
  if (c.rfq.rfq.status !== 'filled') throw new Error(`not filled: ${c.rfq.rfq.status}`);
  clock -= 600;
}
// Signing the order and the quote (the takers' and the maker's work) is on this process's clock too.
console.log(describePer(boxCpu(box0!, boxSnapshot(), {}), N, 'RFQ (create + quote + close, sequential, signing included)'));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, s] of Object.entries(steps)) console.log(`${name.padEnd(7)} p50 ${p50(s.ms).toFixed(2)} ms, ${p50(s.stmts)} statements`);
await t.close();
