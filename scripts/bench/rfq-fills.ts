// bench:rfq items 2 and 3 (docs/performance.md), on one pair of API processes with a short quote window:
//   2. close overhead: best-mode POST /v1/rfq response time minus RFQ_QUOTE_WINDOW_MS, one taker at a time;
//   3. sustained fills/s: K takers post best-mode FOK orders in a closed loop (each waits for its answer)
//      against M makers on the other process that quote every RFQ at once; one hot maker vs several.
// Orders are signed ahead (the takers' work, not on this process's clock during a run); the makers sign
// their quotes live in this process with libsecp256k1 (native-account.ts), and its CPU share is reported next
// to the rates. A taker answered 503 OVERLOADED waits its Retry-After plus up to half of it, as the SDK's submitRfq does, then goes on.
import { randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import type { Party } from '../../src/testing/rfq-trade.js';
import { boxCpu, boxSnapshot } from './box-cpu.js';
import { ms, newMaker, signOrdersAhead, sleep, stats, type Pair, type SignedOrder } from './rfq-common.js';

export interface FillOptions {
  legs: number;
  windowMs: number;
  /** Sequential best-mode RFQs for the close overhead. */
  closeN: number;
  /** Closed-loop takers for the fills/s runs. */
  takers: number;
  /** One fills/s run per entry: how many makers quote each RFQ. */
  makerCounts: number[];
  durationMs: number;
  /** Item 3: every taker posts to A (default), or takers alternate between A and B (as behind a load balancer). */
  spread: boolean;
}

/** Wall-clock splits of one best-mode answer (ms; the service's clock is this host's): POST sent -> the RFQ's
 * created_at_ms, its quote deadline -> closed_at_ms (the close timer and transaction), closed_at_ms -> answer received. */
export interface Phases {
  toCreated: number;
  deadlineToClosed: number;
  closedToAnswer: number;
}

type Signed = SignedOrder;

/** Best-mode FOK orders for `takers`, `perTaker` each (one list per taker). */
const signOrders = (pair: Pair, takers: Party[], perTaker: number, legs: number): Promise<Signed[][]> =>
  Promise.all(takers.map((taker) => signOrdersAhead(pair.domain, [taker], perTaker, pair.marketIds.slice(0, legs), 'FOK')));

/** POST one best-mode order to A; the terminal status and the time to the answer. */
async function postBest(
  pair: Pair,
  { taker, order, signature }: Signed,
  to: 'a' | 'b' = 'a',
): Promise<{ status: string; tookMs: number; phases?: Phases; retryAfterMs?: number }> {
  const sentAt = Date.now();
  const t0 = process.hrtime.bigint();
  const sent = JSON.stringify({ order, signature, fill_mode: 'best', idempotency_key: randomUUID() });
  const post = () =>
    fetch(`${pair[to].baseUrl}/v1/rfq`, {
      method: 'POST',
      headers: { authorization: `Bearer ${taker.token}`, 'content-type': 'application/json' },
      body: sent,
    });
  // A kept-alive socket that sat idle about as long as the server's keepAliveTimeout (5 s, e.g. between two items)
  // can be closed by the server as the POST goes out. The idempotency key makes sending it again safe: the
  // service answers the first attempt's outcome if it got that far.
  const res = await post()
    .catch((err: Error & { cause?: { code?: string } }) => {
      if (err.cause?.code === 'UND_ERR_SOCKET') return post();
      throw err;
    })
    .catch((err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message);
  // A connection the server reset or refused (its connection caps under load) is counted, not fatal.
  if (typeof res === 'string') return { status: `error ${res}`, tookMs: ms(t0, process.hrtime.bigint()), retryAfterMs: 1000 };
  const body = (await res.json()) as {
    status?: string;
    code?: string;
    created_at_ms?: number;
    quote_deadline_ms?: number;
    closed_at_ms?: number | null;
  };
  const tookMs = ms(t0, process.hrtime.bigint());
  if (res.status !== 201) {
    const retryAfter = Number(res.headers.get('retry-after'));
    return { status: `http ${res.status} ${body.code ?? ''}`, tookMs, ...(retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }) };
  }
  const answeredAt = Date.now();
  const phases =
    body.created_at_ms !== undefined && body.quote_deadline_ms !== undefined && typeof body.closed_at_ms === 'number'
      ? {
          toCreated: body.created_at_ms - sentAt,
          deadlineToClosed: body.closed_at_ms - body.quote_deadline_ms,
          closedToAnswer: answeredAt - body.closed_at_ms,
        }
      : undefined;
  return { status: String(body.status), tookMs, ...(phases && { phases }) };
}

/**
 * `count` makers on B, each quoting every RFQ at once at the same odds plus a little noise (so the best
 * quote, hence the filled maker, varies among them rather than always being the first to register).
 */
async function startMakers(pair: Pair, count: number, legs: number) {
  const clients: MarketMakerClient[] = [];
  const refused = new Map<string, number>();
  const refuse = (why: string) => refused.set(why, (refused.get(why) ?? 0) + 1);
  /** Wall clock from the RFQ's created_at_ms to its frame at a maker, and to the maker's quote_ack: a quote acked after the window is too late. */
  const frameLag: number[] = [];
  const ackLag: number[] = [];
  for (let m = 0; m < count; m++) {
    const account = await newMaker(pair);
    const c = new MarketMakerClient({
      url: `${pair.b.baseUrl.replace('http', 'ws')}/v1/ws`,
      account,
      reconnect: false,
      rfqDomain: pair.domain,
    });
    c.on('rfq', (rfq) => {
      frameLag.push(Date.now() - rfq.created_at_ms);
      void c
        .quote({
          rfq_id: rfq.rfq_id,
          odds_bps: 2 ** legs * 9_500 + Math.floor(Math.random() * 50),
          max_fill_micros: Number(rfq.stake_micros),
          valid_until_ms: rfq.expires_at_ms,
        })
        .then((ack) => {
          ackLag.push(Date.now() - rfq.created_at_ms);
          if (!ack.accepted) refuse(String(ack.error));
        })
        .catch((err: Error) => void refuse(err.message));
    });
    await c.start().waitForSession();
    await c.subscribe();
    clients.push(c);
  }
  return { refused, frameLag, ackLag, stop: () => Promise.all(clients.map((c) => c.stop())) };
}

/** Item 2: sequential best-mode RFQs with one maker; response time minus the window. */
export async function closeOverhead(pair: Pair, takers: Party[], o: FillOptions) {
  const makers = await startMakers(pair, 1, o.legs);
  try {
    const [orders] = await signOrders(pair, takers.slice(0, 1), o.closeN + 10, o.legs);
    const over: number[] = [];
    const split = { toCreated: [] as number[], deadlineToClosed: [] as number[], closedToAnswer: [] as number[] };
    const statuses = new Map<string, number>();
    for (const [i, s] of orders!.entries()) {
      const r = await postBest(pair, s);
      if (i < 10) continue; // warm-up
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 'filled') over.push(r.tookMs - o.windowMs);
      if (r.phases) for (const k of ['toCreated', 'deadlineToClosed', 'closedToAnswer'] as const) split[k].push(r.phases[k]);
    }
    const phases = {
      toCreated: stats(split.toCreated),
      deadlineToClosed: stats(split.deadlineToClosed),
      closedToAnswer: stats(split.closedToAnswer),
    };
    return { overhead: stats(over), phases, statuses, refused: makers.refused };
  } finally {
    await makers.stop();
  }
}

/** Item 3: `takers` in a closed loop for `durationMs` against `makerCount` makers. */
export async function sustainedFills(pair: Pair, takers: Party[], makerCount: number, o: Omit<FillOptions, 'takers'>) {
  const makers = await startMakers(pair, makerCount, o.legs);
  try {
    // A taker cannot finish more than one RFQ per window: that bounds the orders it needs.
    const perTaker = Math.ceil(o.durationMs / o.windowMs) + 5;
    const orders = await signOrders(pair, takers, perTaker, o.legs);
    // Warm-up: one RFQ per taker.
    const to = (k: number) => (o.spread && k % 2 === 1 ? 'b' : 'a');
    await Promise.all(orders.map((list, k) => postBest(pair, list.pop()!, to(k))));
    const statuses = new Map<string, number>();
    let filled = 0;
    /** POST -> answer: a taker's cycle; K / its mean bounds the RFQs per second the loop offers. */
    const answers: number[] = [];
    const split = { toCreated: [] as number[], deadlineToClosed: [] as number[], closedToAnswer: [] as number[] };
    const cpu0 = process.cpuUsage();
    const box0 = boxSnapshot();
    const started = Date.now();
    const end = started + o.durationMs;
    await Promise.all(
      orders.map(async (list, k) => {
        for (const s of list) {
          if (Date.now() >= end) break;
          const r = await postBest(pair, s, to(k));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          // As the SDK's submitRfq waits: Retry-After plus up to half of it at random.
          if (r.retryAfterMs) await sleep(Math.max(0, Math.min(r.retryAfterMs * (1 + 0.5 * Math.random()), end - Date.now())));
          answers.push(r.tookMs);
          if (r.phases) for (const k of ['toCreated', 'deadlineToClosed', 'closedToAnswer'] as const) split[k].push(r.phases[k]);
          if (r.status === 'filled') filled++;
        }
      }),
    );
    const elapsedS = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const box = boxCpu(box0, boxSnapshot(), { A: pair.a.proc.pid!, B: pair.b.proc.pid! });
    return {
      fillsPerSecond: filled / elapsedS,
      filled,
      /** Every process's CPU over the run (A, B, this process, PostgreSQL, Redis), to divide by the fills. */
      box,
      statuses,
      refused: makers.refused,
      answer: stats(answers),
      phases: {
        toCreated: stats(split.toCreated),
        deadlineToClosed: stats(split.deadlineToClosed),
        closedToAnswer: stats(split.closedToAnswer),
      },
      frameLag: stats(makers.frameLag),
      ackLag: stats(makers.ackLag),
      /** This process's share of one core (load generator + makers signing quotes). */
      coreShare: (cpu.user + cpu.system) / 1e6 / elapsedS,
    };
  } finally {
    await makers.stop();
  }
}
