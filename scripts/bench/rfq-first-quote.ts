// bench:rfq item 1, "RFQ -> first quote" (docs/performance.md). A maker on B, subscribed to everything, quotes
// each RFQ as soon as its frame arrives. RFQs are created at `rate` per second (open loop, orders signed ahead):
//   via http: POST /v1/rfq to A (manual mode: answered at once), so every frame crosses from A to the maker on B;
//   via domain: this process does what that handler does (createRfq in a transaction, publish after commit),
//     which splits the time at the commit: create -> commit, commit -> frame (bus and gateway B).
import { rfqDepsOf } from '../../src/domain/rfq/deps.js';
import { randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import type { Bus } from '../../src/bus/bus.js';
import { createBus } from '../../src/bus/create.js';
import { readDeploymentId } from '../../src/bus/deployment.js';
import { db } from '../../src/db/schema.js';
import { publishRfqEvents } from '../../src/trading/rfq-events.js';
import { createRfq } from '../../src/domain/rfq/api.js';
import type { RfqDeps } from '../../src/domain/rfq/deps.js';
import type { RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { boxCpu, boxSnapshot } from './box-cpu.js';
import { busHop, recoveries, txFloors } from './rfq-floors.js';
import { log, ms, newMaker, newTakers, signOrdersAhead, sleep, startPair, stats, type Backend } from './rfq-common.js';
import { inTransaction } from '../../src/db/unit-of-work.js';

export interface FirstQuoteOptions {
  n: number;
  rate: number;
  legs: number;
  /** Takers the RFQs rotate over: createRfq serialises one taker's creates (open-RFQ limit under a user lock). */
  takers: number;
  via: 'http' | 'domain';
  floorN: number;
}

export async function firstQuote(mode: Backend, o: FirstQuoteOptions) {
  const pair = await startPair(`benchrfq${mode}`, mode, o.legs, {
    MM_MAX_QUOTES_PER_SECOND: String(Math.max(100, 2 * o.rate)),
    MM_MAX_FRAMES_PER_SECOND: String(Math.max(200, 4 * o.rate)),
    MM_MAX_FRAME_BURST: String(Math.max(1000, 4 * o.rate)), // at least the rate (src/config/rules.ts)
  });
  let bus: Bus | undefined;
  let maker: MarketMakerClient | undefined;
  try {
    const { a, b, config, domain, orm, marketIds } = pair;
    const deps: RfqDeps = rfqDepsOf(config);
    // The services' bus is scoped to the deployment (src/bus/redis.ts): this publisher uses the same id.
    const deploymentId = await readDeploymentId(db(orm.em.fork()));
    bus = await createBus({ prefix: pair.env.QUEUE_PREFIX!, redisUrl: pair.env.REDIS_URL, databaseUrl: pair.dbUrl, deploymentId });
    const takers = await newTakers(a.baseUrl, pair.privy, o.takers, 1_000_000_000);
    const mmAccount = await newMaker(pair);

    // The maker on B: quotes each RFQ on arrival; timestamps in this process's clock.
    maker = new MarketMakerClient({
      url: `${b.baseUrl.replace('http', 'ws')}/v1/ws`,
      account: mmAccount,
      reconnect: false,
      rfqDomain: domain,
    });
    const frameAt = new Map<string, bigint>();
    const ackAt = new Map<string, bigint>();
    const refused = new Map<string, string>();
    maker.on('rfq', (rfq) => {
      frameAt.set(rfq.rfq_id, process.hrtime.bigint());
      void maker!
        .quote({
          rfq_id: rfq.rfq_id,
          odds_bps: 2 ** o.legs * 9_500,
          max_fill_micros: Number(rfq.stake_micros),
          valid_until_ms: rfq.expires_at_ms,
        })
        .then((ack) => (ack.accepted ? ackAt.set(rfq.rfq_id, process.hrtime.bigint()) : refused.set(rfq.rfq_id, String(ack.error))))
        .catch((err: Error) => refused.set(rfq.rfq_id, err.message));
    });
    await maker.start().waitForSession();
    await maker.subscribe();

    const sentAt = new Map<string, bigint>();
    const committedAt = new Map<string, bigint>();
    /** via http: when the taker's long-poll first showed quotes_received >= 1. */
    const takerSawAt = new Map<string, bigint>();
    const polls: Promise<void>[] = [];
    const failures: string[] = [];
    const legs = marketIds.map((market_id) => ({ market_id, direction: 'up' as const }));
    /** Manual-mode IOC orders, open until their deadline (then swept). */
    const signed = (count: number) => signOrdersAhead(domain, takers.slice(0, o.takers), count, marketIds, 'IOC');
    const createOne = async ({ taker, order, signature }: Awaited<ReturnType<typeof signed>>[number]) => {
      const t0 = process.hrtime.bigint();
      if (o.via === 'http') {
        const res = await fetch(`${a.baseUrl}/v1/rfq`, {
          method: 'POST',
          headers: { authorization: `Bearer ${taker.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ order, signature, fill_mode: 'manual', idempotency_key: randomUUID() }),
        });
        const body = (await res.json()) as { rfq_id?: string; code?: string };
        if (res.status !== 201 || !body.rfq_id) throw new Error(`POST /v1/rfq answered ${res.status} ${body.code ?? ''}`);
        sentAt.set(body.rfq_id, t0);
        committedAt.set(body.rfq_id, process.hrtime.bigint()); // the answer: after commit and publish
        // Taker-visible: long-poll GET /v1/rfq/{id}?wait_ms until it shows a quote (woken by the quote's
        // event); not awaited here, so the creation rate is the POSTs' alone.
        const rfqId = body.rfq_id;
        polls.push(
          (async () => {
            for (let i = 0; i < 5; i++) {
              const got = await fetch(`${a.baseUrl}/v1/rfq/${rfqId}?wait_ms=3000&min_quotes=1`, {
                headers: { authorization: `Bearer ${taker.token}` },
              });
              const r = (await got.json()) as { quotes_received?: number };
              if ((r.quotes_received ?? 0) >= 1) return void takerSawAt.set(rfqId, process.hrtime.bigint());
            }
          })().catch((err: Error) => void failures.push(`long-poll: ${err.message}`)),
        );
        return;
      }
      const write = await inTransaction(orm.em.fork(), (tx) =>
        createRfq(tx, deps, {
          userId: taker.userId,
          sessionAddress: taker.wallet.address,
          order,
          signature,
          fillMode: 'manual',
          idempotencyKey: randomUUID(),
        }),
      );
      sentAt.set(write.rfq.rfq.id, t0);
      committedAt.set(write.rfq.rfq.id, process.hrtime.bigint());
      await publishRfqEvents(bus!, write.events, log);
    };

    // Warm-up, then the open-loop run at `rate` per second.
    for (const x of await signed(20)) await createOne(x);
    await sleep(500);
    await Promise.all(polls);
    polls.length = 0;
    for (const m of [sentAt, committedAt, frameAt, ackAt, takerSawAt]) m.clear();
    const orders = await signed(o.n);
    const cpu0 = process.cpuUsage();
    const box0 = boxSnapshot();
    const started = Date.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < o.n; i++) {
      const due = started + (i * 1000) / o.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      inFlight.push(createOne(orders[i]!).catch((err: Error) => void failures.push(err.message)));
    }
    const offered = o.n / ((Date.now() - started) / 1000);
    await Promise.all(inFlight);
    const elapsedS = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await Promise.all(polls);
    const box = boxCpu(box0, boxSnapshot(), { A: a.proc.pid!, B: b.proc.pid! });
    for (let waited = 0; waited < 5_000 && ackAt.size + refused.size < sentAt.size; waited += 100) await sleep(100);

    const toFrame: number[] = [];
    const toAck: number[] = [];
    const toCommit: number[] = [];
    const commitToFrame: number[] = [];
    const toTaker: number[] = [];
    for (const [id, t0] of sentAt) {
      const seen = takerSawAt.get(id);
      if (seen !== undefined) toTaker.push(ms(t0, seen));
      const f = frameAt.get(id);
      const k = ackAt.get(id);
      const c = committedAt.get(id)!;
      toCommit.push(ms(t0, c));
      if (f !== undefined) toFrame.push(ms(t0, f));
      if (f !== undefined) commitToFrame.push(ms(c, f));
      if (k !== undefined) toAck.push(ms(t0, k));
    }
    const order: RfqOrderJson = {
      taker: takers[0]!.wallet.address,
      legs,
      stake_micros: 1_000_000,
      min_odds_bps: 10_001,
      order_type: 'IOC',
      nonce: 1,
      deadline_ms: Date.now() + 5_000,
    };
    const rec = await recoveries(domain, order, o.floorN);
    const tx = await txFloors(pair.dbUrl, o.floorN);
    const hop = await busHop(pair.dbUrl, mode, o.floorN);
    return {
      offered,
      /** RFQs created (answered) per second over the run: below the offered rate, the creator queued them. */
      completed: o.n / elapsedS,
      /** CPU time this process used per RFQ, and its share of one core: a low share means the machine is busy. */
      cpuPerRfqMs: (cpu.user + cpu.system) / 1000 / o.n,
      coreShare: (cpu.user + cpu.system) / 1e6 / elapsedS,
      /** Every process's CPU from the first POST until the last long-poll answered. */
      box,
      frame: stats(toFrame),
      ack: stats(toAck),
      commit: stats(toCommit),
      fanout: stats(commitToFrame),
      /** via http: POST sent -> the taker's getRfq?wait_ms long-poll shows quotes_received >= 1. */
      takerSees: stats(toTaker),
      lost: sentAt.size - toFrame.length,
      refused: refused.size,
      failures,
      fl: { recover: rec.stats, tx: tx.reserve, hop },
    };
  } finally {
    await maker?.stop();
    await bus?.close();
    await pair.stop();
  }
}
