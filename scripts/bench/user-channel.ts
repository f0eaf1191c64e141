// `npm run bench:user-channel [-- --users 1000 --rate 100 --seconds 30 --fills 200 --statements-only]` (docs/performance.md "User
// channel"; docs/user-channel.md):
//   1. statements, time and PostgreSQL CPU per best-mode fill with and without the user event log's triggers (in-process,
//      scripts/bench/user-channel-statements.ts);
//   2. two API processes A and B (PostgreSQL + Redis, NODE_ENV=production), `--users` users each holding one
//      user-channel connection (half on A, half on B), one market maker on B quoting every RFQ, and best-mode orders
//      of those users POSTed to A at `--rate` per second for `--seconds`: user_event frames per second received,
//      commit -> frame latency (the event's at_ms, the database's clock on this host, to its arrival), fills per
//      second, and every connection's frames checked 1, 2, 3... without a gap or a duplicate against the log.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MarketMakerClient } from '@contest-rfq/sdk';
import WebSocket from 'ws';
import { createUserSession } from '../../src/domain/identity/sessions.js';
import { randomWallet } from '../../src/testing/identity.js';
import type { Party } from '../../src/testing/rfq-trade.js';
import { orderTypedData, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { boxCpu, boxSnapshot, describePer } from './box-cpu.js';
import { loadAverage, pool } from './harness.js';
import { fund, newMaker, startPair, stats, type Pair } from './rfq-common.js';
import { statementsPerFill } from './user-channel-statements.js';

const { values: args } = parseArgs({
  options: {
    users: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '30' },
    fills: { type: 'string', default: '200' },
    /** Part 1 only. */
    'statements-only': { type: 'boolean', default: false },
  },
});
const USERS = Number(args.users);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);

// ---- part 1
const cost = await statementsPerFill(Number(args.fills));
console.log('\n1. Statements per best-mode fill (create + quote + close, in-process), triggers on / off');
for (const side of ['with', 'without'] as const) {
  const c = cost[side];
  console.log(
    `  ${side.padEnd(7)} event record: ${c.statements} statements (max ${c.maxStatements}), ${c.p50Ms.toFixed(2)} ms p50, PostgreSQL CPU ${c.postgresMs.toFixed(2)} ms, ${c.events.toFixed(1)} events per fill (n ${c.n})`,
  );
}

if (args['statements-only']) process.exit(0);

// ---- part 2
interface Conn {
  party: Party;
  ws: WebSocket;
  lastSeq: number;
  gaps: number;
}

async function connectUser(pair: Pair, party: Party, on: 'a' | 'b', onFrame: (atMs: number) => void): Promise<Conn> {
  const ws = new WebSocket(`${pair[on].baseUrl.replace('http', 'ws')}/v1/ws`);
  const c: Conn = { party, ws, lastSeq: 0, gaps: 0 };
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString()) as { type: string; seq?: number; at_ms?: number; timestamp?: number; success?: boolean };
      if (f.type === 'auth_result') {
        if (!f.success) return reject(new Error(`auth refused: ${JSON.stringify(f)}`));
        ws.send(JSON.stringify({ type: 'subscribe', channel: 'user', since_seq: 0 }));
      } else if (f.type === 'subscribed') resolve();
      else if (f.type === 'ping') ws.send(JSON.stringify({ type: 'pong', timestamp: f.timestamp }));
      else if (f.type === 'user_event') {
        if (f.seq !== c.lastSeq + 1) c.gaps++;
        c.lastSeq = f.seq!;
        onFrame(f.at_ms!);
      }
    });
    ws.once('open', () => ws.send(JSON.stringify({ type: 'auth', session_token: party.token })));
  });
  return c;
}

const pair = await startPair('uchbench', 'redis', 1, {
  RFQ_QUOTE_WINDOW_MS: '1000', // a shared 2-core box: the maker's quotes arrive in time
  SIWE_DOMAIN: 'localhost:3000', // production requires the sign-in origin (sessions here are made in the database)
  MM_MAX_CONNECTIONS_PER_IP: '100000',
  MM_MAX_UNAUTHENTICATED_PER_IP: '100000',
  RFQ_MAX_DEADLINE_MS: '600000', // orders signed ahead stay valid through a slow signing and the run
});
try {
  console.log(`\n2. ${USERS} connected users, best-mode orders at ${RATE}/s for ${SECONDS} s (load ${loadAverage()})`);
  const em = () => pair.orm.em.fork();
  const takers: Party[] = await pool(USERS, 16, async () => {
    const wallet = randomWallet();
    const userId = await fund(pair.orm, wallet.address.toLowerCase(), 1_000_000_000n);
    const { token } = await createUserSession(em(), userId, 86_400);
    return { wallet, token, userId };
  });
  const account = await newMaker(pair);
  const mm = new MarketMakerClient({
    url: `${pair.b.baseUrl.replace('http', 'ws')}/v1/ws`,
    account,
    reconnect: false,
    rfqDomain: pair.domain,
  });
  const refused = new Map<string, number>();
  const refuse = (why: string) => refused.set(why, (refused.get(why) ?? 0) + 1);
  mm.on('rfq', (rfq) => {
    void mm
      .quote({ rfq_id: rfq.rfq_id, odds_bps: 19_000, max_fill_micros: Number(rfq.stake_micros), valid_until_ms: rfq.expires_at_ms })
      .then((ack) => void (ack.accepted || refuse(String(ack.error))))
      .catch((err: Error) => void refuse(err.message));
  });
  await mm.start().waitForSession();
  await mm.subscribe();

  let frames = 0;
  let counting = false;
  const lag: number[] = [];
  const onFrame = (atMs: number) => {
    if (!counting) return;
    frames++;
    lag.push(Date.now() - atMs);
  };
  const conns = await pool(USERS, 32, (i) => connectUser(pair, takers[i]!, i % 2 === 0 ? 'a' : 'b', onFrame));
  const total = RATE * SECONDS;
  const deadline = Date.now() + 540_000;
  const orders = await pool(total, 8, async (i) => {
    const taker = takers[i % USERS]!;
    const order: RfqOrderJson = {
      taker: taker.wallet.address,
      legs: [{ market_id: pair.marketIds[0]!, direction: 'up' }],
      stake_micros: 1_000_000,
      min_odds_bps: 10_001,
      order_type: 'FOK',
      nonce: i + 1,
      deadline_ms: deadline,
    };
    return { taker, order, signature: await taker.wallet.signTypedData(orderTypedData(pair.domain, order)) };
  });

  const statuses = new Map<string, number>();
  const box0 = boxSnapshot();
  counting = true;
  const started = Date.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const { taker, order, signature } = orders[i]!;
    inflight.push(
      fetch(`${pair.a.baseUrl}/v1/rfq`, {
        method: 'POST',
        headers: { authorization: `Bearer ${taker.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ order, signature, fill_mode: 'best', idempotency_key: randomUUID() }),
      })
        .then(async (res) => {
          const body = (await res.json()) as { status?: string; code?: string };
          const s = res.status === 201 ? String(body.status) : `http ${res.status} ${body.code ?? ''}`;
          statuses.set(s, (statuses.get(s) ?? 0) + 1);
        })
        .catch((err: Error) => void statuses.set(err.message, (statuses.get(err.message) ?? 0) + 1)),
    );
  }
  await Promise.all(inflight);
  const loadS = (Date.now() - started) / 1000;
  const framesDuringLoad = frames;
  const box = boxCpu(box0, boxSnapshot(), { A: pair.a.proc.pid!, B: pair.b.proc.pid! });

  // Drain: every connection catches up with its user's head.
  const heads = async () => {
    const rows = await pair.orm.em
      .fork()
      .getConnection()
      .execute<{ user_id: string; seq: string }[]>('select user_id, seq from user_event_heads');
    return new Map(rows.map((r) => [r.user_id, Number(r.seq)]));
  };
  const drainStart = Date.now();
  let behind = USERS;
  while (Date.now() - drainStart < 30_000) {
    const h = await heads();
    behind = conns.filter((c) => c.lastSeq !== (h.get(c.party.userId) ?? 0)).length;
    if (behind === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  counting = false;
  const filled = statuses.get('filled') ?? 0;
  const l = stats(lag);
  console.log(
    `  orders: ${[...statuses].map(([k, v]) => `${k} ${v}`).join(', ')} in ${loadS.toFixed(1)} s: ${(filled / loadS).toFixed(1)} fills/s`,
  );
  if (refused.size) console.log(`  quotes refused: ${[...refused].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(
    `  user_event frames during the load: ${framesDuringLoad} = ${(framesDuringLoad / loadS).toFixed(0)}/s to ${USERS} connections`,
  );
  console.log(`  commit -> frame (ms): p50 ${l.p50} p95 ${l.p95} p99 ${l.p99} max ${l.max} (n ${l.n})`);
  console.log(
    `  after the load: ${behind} connections behind their head after ${((Date.now() - drainStart) / 1000).toFixed(1)} s; gaps or duplicates: ${conns.reduce((s, c) => s + c.gaps, 0)}`,
  );
  console.log(`  ${describePer(box, Math.max(1, filled), 'fill')} (load ${loadAverage()})`);
  for (const c of conns) c.ws.close();
  await mm.stop();
} finally {
  await pair.stop();
}
