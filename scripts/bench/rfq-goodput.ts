// bench:rfq item 3 (docs/performance.md, issue 38 items 2 and 3): goodput under overload and CPU per fill.
// For each maker count (1, a hot maker; 4, every maker quoting every RFQ), closed-loop takers at
//   - `cpuTakers` (unsaturated: the host has idle CPU): CPU per fill of the service processes (API A + API B +
//     PostgreSQL + Redis) against the same writes as plain SQL from as many clients (client + PostgreSQL + Redis;
//     the median of three runs);
//   - each of `loadTakers` (the saturating load and twice it): fills/s, accepted RFQs that ended `expired`,
//     POSTs shed with 503 OVERLOADED (each taker waits its Retry-After), and this process's share of a core
//     (the load generator: HTTP clients and the makers, which sign natively).
// Every run is measured warm: a first run of `cpuTakers` takers for 4 s is thrown away, so the JIT's first
// compiles and the caches' first fills (on a fresh pair of processes) are not charged to whichever run comes
// first. The service's CPU with no RFQs is then read for 5 s, and each CPU-per-fill line also says how much of
// it is that fixed cost (timers, pollers, PostgreSQL's and Redis's background work) spread over the run's fills.
// Then the ratios the targets name, in one run: 4 makers / 1 maker at the saturating load, expired / accepted,
// fills/s at twice the load / the peak, CPU per fill / plain SQL.
import type { Party } from '../../src/testing/rfq-trade.js';
import { boxCpu, boxSnapshot, describePer, type BoxCpu } from './box-cpu.js';
import { row } from './harness.js';
import { sleep, type Pair } from './rfq-common.js';
import { sustainedFills, type FillOptions } from './rfq-fills.js';
import { sqlFillsPerSecond } from './rfq-floors.js';

export interface GoodputOptions extends Omit<FillOptions, 'takers'> {
  cpuTakers: number;
  loadTakers: number[];
  /** The plain-SQL run's clients at most. */
  sqlClients: number;
}

type Run = Awaited<ReturnType<typeof sustainedFills>>;

const cpuOf = (box: BoxCpu, names: string[]) => box.groups.filter((g) => names.includes(g.name)).reduce((s, g) => s + g.ms, 0);
const count = (r: Run, status: string) => r.statuses.get(status) ?? 0;
/** RFQs the service accepted (201, whatever their end) and those shed at the door. */
const accepted = (r: Run) =>
  [...r.statuses].filter(([s]) => !s.startsWith('http ') && !s.startsWith('error ')).reduce((n, [, k]) => n + k, 0);
const shed = (r: Run) => count(r, 'http 503 OVERLOADED');
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

function printRun(m: number, takers: number, r: Run, cpuPerFill?: { service: number; sql: number }) {
  const acc = accepted(r);
  console.log(
    row([
      [m === 1 ? '1 (hot)' : m, -8],
      [takers, 7],
      [r.fillsPerSecond.toFixed(1), 8],
      [acc, 9],
      [acc ? pct(count(r, 'expired') / acc) : '-', 9],
      [shed(r), 6],
      [pct(r.coreShare), 10],
      [
        cpuPerFill
          ? `${cpuPerFill.service.toFixed(1)} / ${cpuPerFill.sql.toFixed(1)} = ${(cpuPerFill.service / cpuPerFill.sql).toFixed(1)}x`
          : '',
        -22,
      ],
      [JSON.stringify(Object.fromEntries(r.statuses)), -30],
    ]),
  );
  console.log(
    `${''.padEnd(16)} POST -> answer p50 ${r.answer.p50.toFixed(0)} / p99 ${r.answer.p99.toFixed(0)} ms; created -> rfq frame p50 ${r.frameLag.p50} / p99 ${r.frameLag.p99} ms; -> quote_ack p50 ${r.ackLag.p50} / p99 ${r.ackLag.p99} ms; ` +
      `deadline -> closed_at p50 ${r.phases.deadlineToClosed.p50} ms${r.refused.size ? `; quotes refused ${JSON.stringify(Object.fromEntries(r.refused))}` : ''}`,
  );
  console.log(`${''.padEnd(16)} service: ${describePer(r.box, Math.max(1, r.filled), 'fill')}`);
}

const SERVICE = ['A', 'B', 'postgres', 'redis'];

/** The pair's own CPU with no RFQs (timers, sweepers, demo prices, heartbeats): ms of CPU per second of wall clock. */
async function idleCpu(pair: Pair, seconds = 5) {
  const from = boxSnapshot();
  await sleep(seconds * 1000);
  const box = boxCpu(from, boxSnapshot(), { A: pair.a.proc.pid!, B: pair.b.proc.pid! });
  return {
    text: box.groups.map((g) => `${g.name} ${(g.ms / seconds).toFixed(1)}`).join(', '),
    serviceMsPerSecond: cpuOf(box, SERVICE) / seconds,
  };
}

/** The unsaturated run: the service's CPU per fill against the same writes as plain SQL from as many clients. */
async function cpuPerFill(pair: Pair, takers: Party[], m: number, o: GoodputOptions, idleMsPerSecond: number): Promise<string> {
  const quiet = await sustainedFills(pair, takers.slice(0, o.cpuTakers), m, o);
  // The plain-SQL floor three times, its median CPU per fill kept: on a shared box one run moved by a factor of
  // three between rounds (docs/performance.md, machine K) while the service's figure moved by a third.
  const clients = Math.min(o.cpuTakers, o.sqlClients);
  const sqlRuns: Array<{ run: Awaited<ReturnType<typeof sqlFillsPerSecond>>; perFill: number }> = [];
  for (let i = 0; i < 3; i++) {
    const run = await sqlFillsPerSecond(pair.dbUrl, clients, m, m, Math.min(o.durationMs, 5_000));
    sqlRuns.push({ run, perFill: cpuOf(run.box, ['this process', 'postgres', 'redis']) / Math.max(1, run.fills) });
  }
  const sqlRun = [...sqlRuns].sort((a, b) => a.perFill - b.perFill)[1]!;
  const service = cpuOf(quiet.box, SERVICE) / Math.max(1, quiet.filled);
  // What the same processes spend with no RFQs at all, over as long, spread over these fills: the fixed cost.
  const fixed = (idleMsPerSecond * quiet.box.elapsedMs) / 1000 / Math.max(1, quiet.filled);
  const sql = sqlRun.perFill;
  printRun(m, o.cpuTakers, quiet, { service, sql });
  console.log(
    `${''.padEnd(16)} plain SQL (${clients} clients, median of 3 runs: ${sqlRuns.map((r) => r.perFill.toFixed(2)).join(' / ')} ms per fill; the median's ${sqlRun.run.perSecond.toFixed(0)} fills/s): ${describePer(sqlRun.run.box, Math.max(1, sqlRun.run.fills), 'fill')}`,
  );
  return (
    `CPU per fill, ${m} maker(s), ${o.cpuTakers} takers (host ${pct(quiet.box.idleShare)} idle): service ${service.toFixed(1)} ms / plain SQL ${sql.toFixed(1)} ms = ${(service / sql).toFixed(1)}x (target <= ${m === 1 ? 4 : 5}x)` +
    `; of the service's ${service.toFixed(1)} ms, ${fixed.toFixed(1)} ms is what it spends idle over as long (${(service - fixed).toFixed(1)} ms = ${((service - fixed) / sql).toFixed(1)}x without it)`
  );
}

export async function goodput(pair: Pair, takers: Party[], makerCounts: number[], o: GoodputOptions) {
  const warm = await sustainedFills(pair, takers.slice(0, Math.max(1, o.cpuTakers)), makerCounts[0]!, { ...o, durationMs: 4_000 });
  console.log(`warm-up (not counted): ${warm.filled} fills in 4 s; ${describePer(warm.box, Math.max(1, warm.filled), 'fill')}`);
  const idle = await idleCpu(pair);
  console.log(`idle, no RFQs (CPU ms per second): ${idle.text}`);
  console.log(
    row([
      ['makers', -8],
      ['takers', 7],
      ['fills/s', 8],
      ['accepted', 9],
      ['expired', 9],
      ['503s', 6],
      ['bench cpu', 10],
      ['CPU/fill svc / SQL ms', -22],
      ['answers', -30],
    ]),
  );
  const fills = new Map<string, number>();
  const summary: string[] = [];
  for (const m of makerCounts) {
    if (o.cpuTakers > 0) summary.push(await cpuPerFill(pair, takers, m, o, idle.serviceMsPerSecond));
    for (const t of o.loadTakers) {
      const r = await sustainedFills(pair, takers.slice(0, t), m, o);
      printRun(m, t, r);
      fills.set(`${m}/${t}`, r.fillsPerSecond);
      const acc = accepted(r);
      summary.push(
        `${m} maker(s), ${t} takers: ${r.fillsPerSecond.toFixed(1)} fills/s; expired ${count(r, 'expired')} of ${acc} accepted = ${acc ? pct(count(r, 'expired') / acc) : '-'} (target < 5%); shed ${shed(r)}; load generator ${pct(r.coreShare)} of a core`,
      );
    }
  }
  const [base, twice] = o.loadTakers;
  const one = fills.get(`1/${base}`);
  for (const m of makerCounts.filter((k) => k > 1)) {
    const many = fills.get(`${m}/${base}`);
    if (one && many !== undefined) summary.push(`goodput at ${base} takers: ${m} makers / 1 maker = ${pct(many / one)} (target >= 80%)`);
  }
  if (twice !== undefined) {
    const peak = Math.max(...fills.values());
    for (const m of makerCounts) {
      const at2 = fills.get(`${m}/${twice}`);
      if (at2 !== undefined)
        summary.push(`${m} maker(s) at ${twice} takers / the peak (${peak.toFixed(1)} fills/s) = ${pct(at2 / peak)} (target >= 90%)`);
    }
  }
  console.log('\nsummary:');
  for (const line of summary) console.log(`  ${line}`);
}
