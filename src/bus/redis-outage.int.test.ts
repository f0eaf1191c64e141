// A Redis outage does not stall trading (docs/market-makers.md "Redis outage"): with the deployment's Redis
// killed for 10 s, POST /v1/rfq keeps answering (publishing is bounded and never holds the answer) and each
// process's RFQs still reach the makers connected to that process, which fill them; RFQs do not cross
// between processes until Redis is back, and then they do again. A private redis-server (never the shared
// one), two API processes (A also runs the workers), one maker on each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../testing/private-servers.js';
import { buildOrder, postOrder, type MakerConnection, type Party } from '../testing/rfq-trade.js';
import type { ServiceProcess } from '../testing/service-process.js';
import { startTwoProcesses, USDC, type TwoProcesses } from '../testing/two-processes.js';

const QUOTE_WINDOW_MS = 1000;
const OUTAGE_MS = 10_000;

let redis: PrivateRedis;
let h: TwoProcesses;

beforeAll(async () => {
  redis = await startPrivateRedis();
  h = await startTwoProcesses('redisoutage', 'redis', { REDIS_URL: redis.url, RFQ_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS) });
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await redis?.destroy();
}, 60_000);

describe('Redis killed for 10 s while RFQs flow', () => {
  it('creates answer, same-process makers keep quoting and filling; cross-process delivery resumes after', async () => {
    const [onA, onB] = [await h.maker(h.a), await h.maker(h.b)];
    // Each maker quotes every RFQ it hears; its odds say which maker filled an RFQ.
    onA.autoQuote((f) => ({ odds_bps: 20_000, max_fill_micros: Number(f.stake_micros) }));
    onB.autoQuote((f) => ({ odds_bps: 20_001, max_fill_micros: Number(f.stake_micros) }));
    const taker = await h.taker(1000 * USDC);
    const post = async (svc: ServiceProcess) => {
      const t0 = performance.now();
      const order = buildOrder(taker.wallet.address, [{ market_id: h.markets.btc, direction: 'up' }], { stake_micros: USDC });
      const res = await postOrder(svc.baseUrl, taker as Party, h.domain, order);
      return { res, ms: performance.now() - t0 };
    };
    const heard = (m: MakerConnection, rfqId: string) => m.frames.some((f) => f.type === 'rfq' && f.rfq_id === rfqId);

    // Before: an RFQ created on A reaches both makers; B's better odds fill it.
    const before = await post(h.a);
    expect(before.res.body).toMatchObject({ status: 'filled', odds_bps: 20_001 });

    await redis.kill();
    const killedAt = Date.now();
    const during: Array<{ on: 'A' | 'B'; status: number; rfq: string; odds: number | null; ms: number }> = [];
    while (Date.now() - killedAt < OUTAGE_MS) {
      for (const [on, svc] of [
        ['A', h.a],
        ['B', h.b],
      ] as const) {
        const { res, ms } = await post(svc);
        during.push({ on, status: res.status, rfq: res.body.rfq_id, odds: res.body.odds_bps, ms: Math.round(ms) });
      }
    }
    await redis.start();
    const latencies = during.map((d) => d.ms).sort((x, y) => x - y);
    console.log(
      `Redis down ${OUTAGE_MS} ms: ${during.length} RFQs created; POST /v1/rfq (quote window ${QUOTE_WINDOW_MS} ms) ms: ` +
        `min ${latencies[0]}, median ${latencies[Math.floor(latencies.length / 2)]}, max ${latencies.at(-1)}`,
    );
    expect(during.length).toBeGreaterThanOrEqual(4);
    // Every create answered 201 and filled from the maker on its own process.
    for (const d of during) {
      expect(d.status).toBe(201);
      expect(d.odds).toBe(d.on === 'A' ? 20_000 : 20_001);
    }

    // After: once the bus reconnects, an RFQ created on A reaches the maker on B again.
    await expect.poll(async () => (await post(h.a)).res.body.odds_bps, { timeout: 60_000, interval: 200 }).toBe(20_001);
    // None of the outage's RFQs reached the other process, not even late (nothing is queued for a reconnect).
    for (const d of during) expect(heard(d.on === 'A' ? onB : onA, d.rfq)).toBe(false);
    expect(h.invalidFrames()).toEqual([]);
    expect(await h.ledgerProblems()).toEqual([]);
  }, 180_000);
});
