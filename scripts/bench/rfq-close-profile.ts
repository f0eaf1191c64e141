// `npx tsx scripts/bench/rfq-close-profile.ts [n]`: the in-process cost of one best-mode RFQ, step by step
// (create, one quote, close), on a migrated database of its own: wall time per step (p50) and the SQL
// statements each sends (pg's Client.query counted). Where the close overhead of bench:rfq item 2 goes.
import { boxCpu, boxSnapshot, describePer, type BoxSnapshot } from './box-cpu.js';
import { inProcessFills } from './in-process-fill.js';
import { countStatements } from '../../src/testing/statement-counter.js';

const N = Number(process.argv[2] ?? 200);

/** With RFQ_PROFILE_SQL=1, the statements of the last RFQ are printed per step. */
const texts: string[] | undefined = process.env.RFQ_PROFILE_SQL === '1' ? [] : undefined;
const statementsSent = countStatements(texts ? (t) => texts.push(t) : undefined);

const fills = await inProcessFills('rfqprofile');

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
  const signed = await fills.signOrder();
  const rfqId = await step('create', () => fills.create(signed), i);
  const q = await fills.signQuote(rfqId);
  await step('quote', () => fills.quote(q), i);
  await step('close', () => fills.close(rfqId), i);
}
// Signing the order and the quote (the takers' and the maker's work) is on this process's clock too.
console.log(describePer(boxCpu(box0!, boxSnapshot(), {}), N, 'RFQ (create + quote + close, sequential, signing included)'));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, s] of Object.entries(steps)) console.log(`${name.padEnd(7)} p50 ${p50(s.ms).toFixed(2)} ms, ${p50(s.stmts)} statements`);
await fills.stop();
