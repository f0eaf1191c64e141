// bench:contests: the report: the latency table and the EXPLAIN (ANALYZE, BUFFERS) plans, flagging Seq Scans.
import pg from 'pg';
import type { Case } from './contests-cases.js';
import type { Captured } from './contests-capture.js';
import { percentile } from './harness.js';

export interface CaseResult {
  name: string;
  queries: number;
  http: number[];
  pg: number[];
  seconds: number;
}

export interface TableMeta {
  counts: Record<string, unknown>;
  seedSeconds: number;
  timingSeconds: number;
  n: number;
  warmup: number;
  caseSeconds: number;
}

/** The latency table (milliseconds) with its header lines. */
export function formatTable(results: CaseResult[], m: TableMeta): string {
  const { counts, seedSeconds, timingSeconds, n: N, warmup: WARMUP, caseSeconds: CASE_SECONDS } = m;
  const f = (n: number) => n.toFixed(2).padStart(8);
  const lines = [
    `contests bench: ${counts.contests} contests (${counts.contest_markets} contest markets), ${counts.contest_entries} entries in one contest (${counts.picks} picks), ${counts.users} users; seeded in ${seedSeconds.toFixed(1)} s; up to ${N} timed requests per side per case after ${WARMUP} warm-up, sequential, HTTP and pg interleaved (${timingSeconds.toFixed(1)} s)`,
    `score histogram of the big contest (score:entries): ${counts.histogram}; open sports contests: ${counts.open_sports}`,
    `n = timed requests per side (fewer than ${N} when a case hit its ${CASE_SECONDS} s budget); pg = the handler's own SQL (captured from the domain functions) replayed on one pg connection; "q" = statements per request`,
    '',
    `${'case'.padEnd(38)} ${'q'.padStart(2)} ${'n'.padStart(4)} ${'HTTP p50'.padStart(8)} ${'HTTP p99'.padStart(8)} ${'pg p50'.padStart(8)} ${'pg p99'.padStart(8)} ${'x p50'.padStart(7)} ${'x p99'.padStart(7)}`,
    `${'-'.repeat(38)} -- ---- -------- -------- -------- -------- ------- -------`,
    ...results.map((r) => {
      const h50 = percentile(r.http, 50);
      const h99 = percentile(r.http, 99);
      const p50 = percentile(r.pg, 50);
      const p99 = percentile(r.pg, 99);
      return `${r.name.padEnd(38)} ${String(r.queries).padStart(2)} ${String(r.http.length).padStart(4)} ${f(h50)} ${f(h99)} ${f(p50)} ${f(p99)} ${(h50 / p50).toFixed(1).padStart(6)}x ${(h99 / p99).toFixed(1).padStart(6)}x`;
    }),
    '(milliseconds; x = HTTP / pg)',
  ];
  return lines.join('\n');
}

/** Prints the plans of the cases' key statements; the number of Seq Scans on contests / contest_entries. */
export async function explainPlans(
  sql: pg.ClientBase,
  cases: Case[],
  s: { leaderboardTopSql: string; topParticipantsSql: string; deepPages: number },
) {
  const { leaderboardTopSql: LEADERBOARD_TOP_SQL, topParticipantsSql: TOP_PARTICIPANTS_SQL, deepPages: DEEP_PAGES } = s;
  const explain = async (title: string, q: Captured) => {
    const plan = (await sql.query({ text: `explain (analyze, buffers) ${q.text}`, values: q.values })).rows.map(
      (r) => r['QUERY PLAN'] as string,
    );
    console.log(
      `\n=== EXPLAIN (ANALYZE, BUFFERS): ${title}\n-- ${q.text.replace(/\s+/g, ' ').trim()}\n-- params: ${JSON.stringify(q.values)}`,
    );
    console.log(plan.join('\n'));
    const seq = plan.filter((l) => /Seq Scan on (contests|contest_entries)\b/.test(l));
    if (seq.length) console.log(`\n!!!!!!!! SEQ SCAN on ${seq.map((l) => l.trim()).join(' | ')} !!!!!!!!`);
    return seq.length;
  };
  const find = (c: Case, pred: (q: Captured) => boolean) => {
    const q = c.queries.find(pred);
    if (!q) throw new Error(`no matching query captured for ${c.name}`);
    return q;
  };
  let seqScans = 0;
  seqScans += await explain(
    'leaderboard top (limit=10)',
    find(cases[0]!, (q) => q.text === LEADERBOARD_TOP_SQL),
  );
  seqScans += await explain(
    'leaderboard top (limit=100)',
    find(cases[1]!, (q) => q.text === LEADERBOARD_TOP_SQL),
  );
  seqScans += await explain('leaderboard caller rows', cases[2]!.queries[cases[2]!.queries.length - 1]!);
  seqScans += await explain(
    'lobby first page',
    find(cases[3]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    `lobby page ${DEEP_PAGES + 1} (keyset)`,
    find(cases[4]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    'lobby status=open&category=sports',
    find(cases[5]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    'top participants (7 days)',
    find(cases[6]!, (q) => q.text === TOP_PARTICIPANTS_SQL),
  );
  return seqScans;
}
