// `npm run bench:rfq [-- --items 1,2,3,5 --n 300 --rate 100 --legs 2 --takers 8 --via http --backends redis,postgres
//   --window 250 --close-n 50 --fill-takers 96,192 --cpu-takers 12 --fill-via a|ab --makers 1,4 --duration 8000 --sockets 500 --open 2000]`:
// the trading targets of docs/performance.md, items 1, 2, 3 and 5, each next to the floors and ceilings measured in the same run
// (a benchmark, not a test). Two API processes A and B run on one database; makers are on B, POSTs go to A.
//   1. RFQ -> first quote, per backend (PostgreSQL + Redis; PostgreSQL only: the bus is LISTEN/NOTIFY):
//      rfq-first-quote.ts; floor = one order recovery + one reserve-shaped tx + one bus hop.
//   2. close overhead: best-mode response time - RFQ_QUOTE_WINDOW_MS, next to the fill-shaped tx floor.
//   3. goodput and CPU per fill (rfq-goodput.ts): closed-loop takers x auto-quoting makers, a hot maker (M=1)
//      vs several, at an unsaturated load (CPU per fill against the same writes as plain SQL), at the saturating
//      load and at twice it (fills/s, expired share, 503 OVERLOADED shed).
//   5. RSS of API process A per subscribed maker socket and per open manual-mode RFQ.
// Items 2, 3 and 5 run on PostgreSQL + Redis with a short quote window (250 ms: on a busy 2-core box the
// created -> quote_ack time alone reached ~110 ms p50 at 100 ms, so most RFQs expired instead of filling).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { describePer } from './box-cpu.js';
import { loadAverage } from './harness.js';
import { newTakers, startPair, statsHeader, statsLine, type Backend } from './rfq-common.js';
import { closeOverhead, type FillOptions } from './rfq-fills.js';
import { goodput } from './rfq-goodput.js';
import { firstQuote } from './rfq-first-quote.js';
import { recoveries, txFloors } from './rfq-floors.js';
import { memory } from './rfq-memory.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '1,2,3,5' },
    n: { type: 'string', default: '300' },
    rate: { type: 'string', default: '100' },
    legs: { type: 'string', default: '2' },
    backends: { type: 'string', default: 'redis,postgres' },
    floors: { type: 'string', default: '200' },
    takers: { type: 'string', default: '8' },
    via: { type: 'string', default: 'http' },
    window: { type: 'string', default: '250' },
    'close-n': { type: 'string', default: '50' },
    /** Item 3: the saturating load and twice it (closed-loop takers); item 2 uses the first. */
    'fill-takers': { type: 'string', default: '96,192' },
    /** Item 3: the unsaturated run whose CPU per fill is compared with plain SQL. */
    'cpu-takers': { type: 'string', default: '12' },
    /** Items 2, 3, 5: RFQ_ADMISSION_MAX_LOOP_DELAY_MS and RFQ_ADMISSION_MAX_IN_FLIGHT of the API processes (default: the service's). */
    'loop-delay': { type: 'string' },
    'max-in-flight': { type: 'string' },
    'max-create': { type: 'string' },
    /** Item 3: 'a' posts every order to A; 'ab' alternates takers between A and B, as a load balancer would. */
    'fill-via': { type: 'string', default: 'a' },
    makers: { type: 'string', default: '1,4' },
    duration: { type: 'string', default: '8000' },
    sockets: { type: 'string', default: '500' },
    open: { type: 'string', default: '2000' },
  },
});
const ITEMS = new Set(values.items.split(',').map((s) => s.trim()));
const LEGS = Math.min(4, Math.max(1, Number(values.legs)));
const FLOOR_N = Number(values.floors);
const VIA = values.via === 'domain' ? 'domain' : 'http';
const CORES = availableParallelism();
/** The plain-SQL ceiling runs at most this many clients (PostgreSQL allows 100 connections; more add nothing on 2 cores). */
const SQL_CLIENTS = 32;
const load = loadAverage;
const LOAD_TAKERS = values['fill-takers'].split(',').map(Number);
const CPU_TAKERS = Number(values['cpu-takers']);

console.log(`bench:rfq  node ${process.version}  ${new Date().toISOString()}  ${CORES} cores, load average ${load()}, ${LEGS} legs`);

if (ITEMS.has('1')) {
  const N = Number(values.n);
  const RATE = Number(values.rate);
  console.log(`\n== 1. RFQ -> first quote: n=${N} at ${RATE}/s, via ${VIA}, maker on the other API process`);
  for (const mode of values.backends.split(',').map((s) => s.trim()) as Backend[]) {
    const r = await firstQuote(mode, { n: N, rate: RATE, legs: LEGS, takers: Number(values.takers), via: VIA, floorN: FLOOR_N });
    const floorP50 = r.fl.recover.p50 + r.fl.tx.p50 + r.fl.hop.p50;
    const label = mode === 'redis' ? 'PostgreSQL + Redis' : 'PostgreSQL only (LISTEN/NOTIFY)';
    console.log(`\n${label}: offered ${r.offered.toFixed(0)} RFQ/s, created ${r.completed.toFixed(0)} RFQ/s`);
    const creator = VIA === 'http' ? 'API process A' : 'this process (it runs createRfq)';
    if (r.offered < 0.9 * RATE || r.completed < 0.9 * RATE) {
      console.log(
        `  (below the asked ${RATE}/s: ${r.offered < 0.9 * RATE ? 'this load generator' : creator} could not keep up, so the latencies include its queue;` +
          ` this process used ${r.cpuPerRfqMs.toFixed(1)} ms of CPU per RFQ and got ${(100 * r.coreShare).toFixed(0)}% of a core)`,
      );
    }
    statsHeader();
    statsLine(`${VIA === 'http' ? 'POST' : 'create'} -> rfq frame at the maker (other process)`, r.frame);
    statsLine(`${VIA === 'http' ? 'POST' : 'create'} -> the maker's quote_ack`, r.ack);
    if (VIA === 'http') {
      statsLine('POST -> its 201 answer from A', r.commit);
      if (VIA === 'http') statsLine('POST -> taker long-poll shows a quote (manual)', r.takerSees);
    } else {
      statsLine('  of which create -> commit (this process)', r.commit);
      statsLine('  of which commit -> rfq frame (bus, gateway B)', r.fanout);
    }
    statsLine('floor: order signature check (native, this process)', r.fl.recover);
    statsLine('floor: reserve-shaped write tx (sequential)', r.fl.tx);
    statsLine('floor: bus hop (publish -> other instance)', r.fl.hop);
    console.log(
      `floor sum p50 ${floorP50.toFixed(2)} ms; rfq frame p50 = ${(r.frame.p50 / floorP50).toFixed(1)}x the floor` +
        `; frames lost ${r.lost}, quotes refused ${r.refused}, create failures ${r.failures.length}${r.failures.length ? ` (${r.failures[0]})` : ''}`,
    );
    console.log(describePer(r.box, N, 'RFQ'));
  }
}

if (ITEMS.has('2') || ITEMS.has('3') || ITEMS.has('5')) {
  const makerCounts = values.makers.split(',').map(Number);
  const fill: FillOptions = {
    legs: LEGS,
    windowMs: Number(values.window),
    closeN: Number(values['close-n']),
    takers: LOAD_TAKERS[0]!,
    makerCounts,
    durationMs: Number(values.duration),
    spread: values['fill-via'] === 'ab',
  };
  const sockets = Number(values.sockets);
  const openRfqs = Number(values.open);
  const quotesPerSecond = 5_000;
  const pair = await startPair('benchrfqfills', 'redis', LEGS, {
    RFQ_QUOTE_WINDOW_MS: String(fill.windowMs),
    // Every maker quotes every RFQ: far above the fill rate, so no quote is refused as rate_limited.
    MM_MAX_QUOTES_PER_SECOND: String(quotesPerSecond),
    MM_MAX_FRAMES_PER_SECOND: String(2 * quotesPerSecond),
    MM_MAX_FRAME_BURST: String(2 * quotesPerSecond), // at least the rate (src/config/rules.ts)
    MM_MAX_QUEUED_FRAMES: '1000',
    MM_MAX_CONNECTIONS_PER_IP: String(sockets + Math.max(...makerCounts) + 20),
    MM_MAX_UNAUTHENTICATED_PER_IP: '40',
    // Admission control as deployed (src/testing/service-process.ts turns its loop-delay and create-latency signals
    // off for tests): the defaults (a fifth of the quote window) unless --loop-delay / --max-create say otherwise.
    RFQ_ADMISSION_MAX_LOOP_DELAY_MS: values['loop-delay'] ?? String(Math.round(fill.windowMs / 5)),
    RFQ_ADMISSION_MAX_CREATE_MS: values['max-create'] ?? String(Math.ceil(fill.windowMs / 5)),
    ...(values['max-in-flight'] && { RFQ_ADMISSION_MAX_IN_FLIGHT: values['max-in-flight'] }),
  });
  try {
    const takers = await newTakers(pair.a.baseUrl, pair.privy, Math.max(...LOAD_TAKERS, CPU_TAKERS, 1), 1_000_000_000);
    const order = {
      taker: takers[0]!.wallet.address,
      legs: pair.marketIds.map((market_id) => ({ market_id, direction: 'up' as const })),
      stake_micros: 1_000_000,
      min_odds_bps: 10_001,
      order_type: 'FOK' as const,
      nonce: 1,
      deadline_ms: Date.now() + 5_000,
    };
    console.log(`\n== PostgreSQL + Redis, RFQ_QUOTE_WINDOW_MS=${fill.windowMs}, makers on B, POSTs to A (load average ${load()})`);

    // Memory first, on the fresh pair: after the fills runs the heap has grown and new sockets fit in it.
    if (ITEMS.has('5')) {
      const r = await memory(pair, takers, { legs: LEGS, sockets, openRfqs });
      const mib = (kb: number) => (kb / 1024).toFixed(0);
      console.log(`\n5. memory of API process A (VmRSS; load average ${load()})`);
      console.log(
        `subscribed maker sockets: ${r.sockets.n}, RSS ${mib(r.sockets.beforeKb)} -> ${mib(r.sockets.afterKb)} MiB = ${r.sockets.perKb.toFixed(1)} KiB per socket`,
      );
      console.log(
        `open manual-mode RFQs   : ${r.rfqs.n}${r.rfqs.failed ? ` (${r.rfqs.failed} refused)` : ''}${r.rfqs.skipped ? ` (${r.rfqs.skipped} not sent: the deadline was near)` : ''}, RSS ${mib(r.rfqs.beforeKb)} -> ${mib(r.rfqs.afterKb)} MiB = ${r.rfqs.perKb.toFixed(2)} KiB per RFQ` +
          (r.rfqs.stillOpen ? '' : ' (WARNING: read after the deadline, some may have closed)'),
      );
    }

    if (ITEMS.has('2')) {
      const r = await closeOverhead(pair, takers, fill);
      const tx = await txFloors(pair.dbUrl, FLOOR_N);
      console.log(`\n2. close overhead: ${fill.closeN} best-mode FOK RFQs one after another, one maker quoting each`);
      statsHeader();
      statsLine('POST (best) -> answer, minus the quote window', r.overhead);
      statsLine('  of which POST sent -> created_at_ms', r.phases.toCreated);
      statsLine('  of which quote deadline -> closed_at_ms', r.phases.deadlineToClosed);
      statsLine('  of which closed_at_ms -> answer received', r.phases.closedToAnswer);
      statsLine('floor: fill-shaped write tx (sequential)', tx.fill);
      statsLine('floor: reserve-shaped write tx (sequential)', tx.reserve);
      const sig = await recoveries(pair.domain, order, FLOOR_N);
      statsLine('one signature check (now at quote_ack, not in the close)', sig.stats);
      console.log(
        `close overhead p50 = ${(r.overhead.p50 / tx.fill.p50).toFixed(1)}x the fill-tx floor (target <= 6x); answers ${JSON.stringify(Object.fromEntries(r.statuses))}, quotes refused ${JSON.stringify(Object.fromEntries(r.refused))}`,
      );
    }

    if (ITEMS.has('3')) {
      const rec = await recoveries(pair.domain, order, Math.max(FLOOR_N, 2000));
      console.log(
        `\n3. goodput and CPU per fill: closed-loop takers posting to ${fill.spread ? 'A and B in turn' : 'A'}, ${fill.durationMs / 1000} s a run;` +
          ` signature checks ${rec.perSecond.toFixed(0)}/s on one core (typed-data hash + native recovery); load average ${load()}`,
      );
      await goodput(pair, takers, makerCounts, { ...fill, cpuTakers: CPU_TAKERS, loadTakers: LOAD_TAKERS, sqlClients: SQL_CLIENTS });
    }
  } finally {
    await pair.stop();
  }
}
console.log(`\nload average at the end ${load()}`);
