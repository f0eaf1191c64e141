// `npm run bench:reads [-- --seconds 3 --rounds 2 --connections 32 --only 'markets current,healthz' --session]`: every public read of the service as
// deployed (PostgreSQL + Redis, LOG_LEVEL=info, one JSON log line per request to a pipe) against bare
// express and bare node:http serving the exact same captured bytes, each in its own child process:
//   - seeds a database of its own (plain SQL after the service migrated it): 40 users, 30 lobby contests and
//     one resolved lineups contest with 400 entries (leaderboard, top participants, popular entry);
//   - with --session, every request carries a signed-in user's bearer token (caller fields: lobby and detail
//     `joined`, leaderboard `caller`; the user holds 10 entries in the board's contest);
//   - captures each read's response body and Content-Type once from the service;
//   - runs interleaved rounds (service, express, node:http per route per round) with autocannon, 127.0.0.1 only,
//     the service's output read and dropped (not parsed) once it is up;
//   - prints req/s, service/express and service/node:http ratios, p50/p99 latency (ms) and each server process's
//     CPU per request (µs, from /proc: user + system) per target, and the load generator's (this process's) CPU share.
// A benchmark, never a timed test: the ratios are only comparable within one run on one machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createTestPrivy } from '../../src/testing/identity.js';
import { newUserSession } from '../../src/testing/money.js';
import { BENCH_EIP712_SALT, startBenchService, type BenchService } from './harness.js';
import { processCpuMs } from './box-cpu.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    /** Comma-separated route names to run (e.g. 'markets current,healthz'); all when absent. */
    only: { type: 'string' },
    /** Every request signed in as one user (caller fields computed); anonymous when absent. */
    session: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const DAY = 86_400_000;
const log = (msg: string) => process.stderr.write(`${msg}\n`);

// The bare servers: one JSON file of {path -> {type, body(base64)}}; unknown paths answer 404.
const BARE_SERVER = `
import { readFileSync } from 'node:fs';
const table = JSON.parse(readFileSync(process.env.BENCH_TABLE, 'utf8'));
const routes = new Map(Object.entries(table).map(([p, r]) => [p, { type: r.type, body: Buffer.from(r.body, 'base64') }]));
const send = (res, r) => { res.statusCode = 200; res.setHeader('Content-Type', r.type); res.end(r.body); };
let server;
if (process.env.BENCH_KIND === 'express') {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res) => { const r = routes.get(req.originalUrl); if (!r) { res.status(404).end(); return; } send(res, r); });
  server = app.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
} else {
  const { createServer } = await import('node:http');
  server = createServer((req, res) => { const r = routes.get(req.url); if (!r) { res.statusCode = 404; res.end(); return; } send(res, r); });
  server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
}
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

function startBare(kind: 'express' | 'node', tablePath: string): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER], {
    cwd: process.cwd(),
    // BENCH_BARE_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=DIR': CPU profiles of the bare servers, to set beside the service's.
    env: { PATH: process.env.PATH, BENCH_KIND: kind, BENCH_TABLE: tablePath, NODE_OPTIONS: process.env.BENCH_BARE_NODE_OPTIONS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /^port (\d+)$/.exec(line);
      if (m) resolve({ proc, base: `http://127.0.0.1:${m[1]}` });
    });
    proc.once('exit', (code) => reject(new Error(`bare ${kind} server exited (${code})`)));
  });
}

interface Shot {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** The server process's CPU (user + system) per request answered, µs. */
  cpuUs: number;
  /** This process's (the load generator's) CPU over the run, in cores. */
  loadCores: number;
}

let headers: Record<string, string> = {};
async function shoot(url: string, pid: number): Promise<Shot> {
  const [cpu0, self0, t0] = [processCpuMs(pid), process.cpuUsage(), performance.now()];
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, pipelining: 1, headers });
  const self = process.cpuUsage(self0);
  const cpuUs = ((processCpuMs(pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
  const loadCores = (self.user + self.system) / 1000 / (performance.now() - t0);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts, cpuUs, loadCores };
}

let bench: BenchService | undefined;
let client: pg.Client | undefined;
const bares: ChildProcess[] = [];
const tablePath = join(tmpdir(), `bench-reads-${process.pid}.json`);
async function cleanup() {
  await client?.end().catch(() => undefined);
  for (const b of bares) b.kill('SIGTERM');
  await bench?.stop().catch((err: unknown) => log(`could not stop the service or drop ${bench?.db.name}: ${String(err)}`));
  rmSync(tablePath, { force: true });
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));

try {
  const privy = await createTestPrivy();
  bench = await startBenchService('benchreads', {
    NODE_ENV: 'production',
    ALLOW_DEMO_SETTLEMENT: 'true',
    ALLOW_DEMO_PRICES: 'true', // the bench's windows resolve from the demo prices
    RFQ_EIP712_SALT: BENCH_EIP712_SALT,
    SIWE_DOMAIN: 'localhost:3000',
    OPERATOR_TOKEN: 'bench-operator-token-0123456789',
    // e.g. BENCH_SERVICE_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof': a CPU profile of the service, written when it stops.
    NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS,
    ...privy.env,
  });
  const { svc, db } = bench;
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const sql = client;
  // Created before the seed, so the session's user holds entries on the board like the seeded readers.
  if (values.session) headers = { authorization: `Bearer ${(await newUserSession(svc.baseUrl, privy)).token}` };
  const now = Date.now();
  const bigId = randomUUID();
  await sql.query(
    `insert into users (id, wallet_address, handle) select gen_random_uuid(), '0x' || lpad(to_hex(n), 40, '0'), 'reader_' || n
       from generate_series(1, 40) n`,
  );
  await sql.query(
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
       max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
       bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms)
     select gen_random_uuid(), 'Reads contest #' || n, (array['mentions', 'sports', 'culture'])[1 + n % 3], 'lineups', null, 'open',
            5000000, 0, 100, 1, 0, 0, null, $1::bigint + $2::bigint, $1::bigint + 2 * $2::bigint, 'num_bets', 2, '{6000,3000,1000}',
            null, 'visible', $1::bigint - n * 60000
       from generate_series(1, 30) n`,
    [now, DAY],
  );
  await sql.query(
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
       max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
       bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms, resolved_at_ms)
     values ($1, 'Reads: the board', 'sports', 'lineups', 'One contest with entries', 'resolved', 5000000, 100000000, 1000, 10, 400, 0,
       null, $2::bigint - 2 * $3::bigint, $2::bigint - $3::bigint / 12, 'num_bets', 4, '{5000,2500,1000}', null, 'visible',
       $2::bigint - 3 * $3::bigint, $2::bigint - 3600000)`,
    [bigId, now, DAY],
  );
  await sql.query(
    `with m as (insert into markets (kind) select 'contest' from generate_series(1, 4) returning market_id),
          r as (select market_id, (row_number() over (order by market_id) - 1)::int as k from m)
     insert into contest_markets (market_id, contest_id, position, category, name, status, outcome, resolved_at_ms)
     select market_id, $1, k, 'sports', 'Board market ' || (k + 1), 'RESOLVED', case when k % 2 = 0 then 'YES' else 'NO' end, $2::bigint - 7200000
       from r`,
    [bigId, now],
  );
  await sql.query(
    `create temp table seed_entries as
     select gen_random_uuid() as id, u.id as user_id, k as entry_index, floor(random() * 16)::int as mask,
            $1::bigint + floor(random() * $2::bigint)::bigint as created_at_ms
       from users u cross join generate_series(0, 9) k`,
    [now - 3 * DAY, 2 * DAY],
  );
  await sql.query(
    `insert into contest_entries (id, contest_id, user_id, entry_index, created_at_ms, pick_count, resolved_win_count,
       resolved_leg_count, score, payout, rank)
     select id, $1, user_id, entry_index, created_at_ms, 4, s, 4, s, case when s = 4 then 4000000 else 0 end, rank() over (order by s desc)
       from (select *, length(replace(mask::bit(4)::text, '0', ''))::int as s from seed_entries) e`,
    [bigId],
  );
  await sql.query(
    `insert into contest_entry_picks (entry_id, market_id, direction)
     select e.id, m.market_id, case when ((e.mask >> m.position) & 1 = 1) = (m.outcome = 'YES') then 'up' else 'down' end
       from seed_entries e cross join contest_markets m where m.contest_id = $1`,
    [bigId],
  );
  await sql.query(
    `update contest_markets cm set up_count = p.up, down_count = p.down
       from (select market_id, count(*) filter (where direction = 'up')::int as up, count(*) filter (where direction = 'down')::int as down
               from contest_entry_picks group by market_id) p
      where cm.market_id = p.market_id and cm.contest_id = $1`,
    [bigId],
  );
  await sql.query(
    `insert into contest_score_counts (contest_id, score, entries)
     select contest_id, score, count(*)::int from contest_entries where contest_id = $1 group by contest_id, score`,
    [bigId],
  );
  await sql.query('vacuum (analyze)');

  const window300 = Math.floor(now / 300_000) * 300_000;
  const allRoutes: Array<[string, string]> = [
    ['markets current', '/v1/markets/current?asset=BTC&duration_secs=300'],
    ['markets lookup', `/v1/markets/lookup?asset=ETH&duration_secs=300&window_start_ms=${window300}`],
    ['lobby', '/v1/contests?limit=20'],
    ['contest detail', `/v1/contests/${bigId}`],
    ['leaderboard', `/v1/contests/${bigId}/leaderboard?limit=10`],
    ['top participants', `/v1/contests/${bigId}/top-participants?window_ms=${7 * DAY}&limit=5`],
    ['popular entry', `/v1/contests/${bigId}/popular-entry`],
    ['healthz', '/healthz'],
  ];
  const only = values.only?.split(',').map((n) => n.trim());
  const routes = only ? allRoutes.filter(([name]) => only.includes(name)) : allRoutes;
  if (!routes.length) throw new Error(`--only matches none of: ${allRoutes.map(([n]) => n).join(', ')}`);
  const table: Record<string, { type: string; body: string }> = {};
  for (const [name, path] of routes) {
    const res = await fetch(`${svc.baseUrl}${path}`, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${name}: ${path} answered ${res.status}: ${body.toString()}`);
    table[path] = { type: res.headers.get('content-type') ?? 'application/json', body: body.toString('base64') };
  }
  writeFileSync(tablePath, JSON.stringify(table));
  const express = await startBare('express', tablePath);
  const node = await startBare('node', tablePath);
  bares.push(express.proc, node.proc);
  for (const [, path] of routes) {
    for (const base of [express.base, node.base]) {
      const b = Buffer.from(await (await fetch(`${base}${path}`)).arrayBuffer());
      if (!b.equals(Buffer.from(table[path]!.body, 'base64')))
        throw new Error(`bare server at ${base} does not serve the captured bytes of ${path}`);
    }
  }

  const targets = [
    ['service', svc.baseUrl, svc.proc.pid!],
    ['express', express.base, express.proc.pid!],
    ['node', node.base, node.proc.pid!],
  ] as const;
  const results = new Map<string, Shot[]>();
  log(
    `${routes.length} routes x ${targets.length} targets x ${ROUNDS} rounds x ${SECONDS} s at ${CONNECTIONS} connections, ${values.session ? 'signed in' : 'anonymous'}`,
  );
  // From here on the service's log lines (one per request) are read and dropped, not parsed: a deployment's
  // log shipper parses them in its own process, and parsing them here took CPU from the load generator.
  svc.discardOutput();
  // Warm-up: one second per route on the service (JIT, pools, first-request window upserts).
  for (const [, path] of routes) await autocannon({ url: `${svc.baseUrl}${path}`, connections: CONNECTIONS, duration: 1, headers });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, path] of routes) {
      for (const [target, base, pid] of targets) {
        const shot = await shoot(`${base}${path}`, pid);
        if (shot.non2xx) log(`  ${name} @ ${target}: ${shot.non2xx} non-2xx/errors`);
        const key = `${name}|${target}`;
        results.set(key, [...(results.get(key) ?? []), shot]);
      }
      log(`  round ${round + 1}: ${name} done`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const agg = (name: string, target: string) => {
    const s = results.get(`${name}|${target}`)!;
    return {
      rps: mean(s.map((x) => x.rps)),
      p50: mean(s.map((x) => x.p50)),
      p99: mean(s.map((x) => x.p99)),
      cpuUs: mean(s.map((x) => x.cpuUs)),
      loadCores: mean(s.map((x) => x.loadCores)),
    };
  };
  const ms = (x: { p50: number; p99: number }) => `${x.p50.toFixed(1)}/${x.p99.toFixed(1)}`;
  const lines = [
    `| route | service req/s | express req/s | node:http req/s | service/express | service/node:http | service p50/p99 ms | express p50/p99 ms | node p50/p99 ms | CPU µs/request service / express / node:http | load generator cores (service / express / node:http runs) |`,
    `|---|---|---|---|---|---|---|---|---|---|---|`,
  ];
  for (const [name, path] of routes) {
    const s = agg(name, 'service');
    const e = agg(name, 'express');
    const n = agg(name, 'node');
    lines.push(
      `| \`GET ${path.split('?')[0]!.replace(bigId, '{id}')}\` (${name}) | ${s.rps.toFixed(0)} | ${e.rps.toFixed(0)} | ${n.rps.toFixed(0)} | ${(s.rps / e.rps).toFixed(2)} | ${(s.rps / n.rps).toFixed(2)} | ${ms(s)} | ${ms(e)} | ${ms(n)} | ${[s, e, n].map((x) => x.cpuUs.toFixed(1)).join(' / ')} | ${[s, e, n].map((x) => x.loadCores.toFixed(2)).join(' / ')} |`,
    );
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
} finally {
  await cleanup();
}
