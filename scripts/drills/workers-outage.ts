// Drill `workers-outage` (issue 24): the workers process is SIGKILLed for DRILL_OUTAGE_MS (60 s) under
// traffic. Throughout, the API must stay in rotation (/readyz 200, `workers` turning `stale`), public reads
// must answer 200, RFQ trading must fill (a maker quoting over the WebSocket; the API process closes its
// own RFQs), and deposits must answer 202 (pending). After the workers return, every deposit settles
// exactly once (harness.ts verify()).
import { randomWallet } from '../../src/testing/identity.js';
import { buildOrder, currentMarketId, fetchDomain, fundWallet, postOrder, readyMaker } from '../../src/testing/rfq-trade.js';
import type { AbuseDrill } from './abuse.js';
import { DepositStream, DRILL_OPERATOR_TOKEN, DRILL_SIWE_DOMAIN, sleep, verify, waitReady, type Env } from './harness.js';

const OUTAGE_MS = Number(process.env.DRILL_OUTAGE_MS ?? 60_000);

const count = (tally: Record<string, number>, key: string | number) => (tally[String(key)] = (tally[String(key)] ?? 0) + 1);

export const workersOutage: AbuseDrill = {
  name: 'workers-outage',
  what: `the workers process SIGKILLed for ${OUTAGE_MS} ms under deposits, public reads and RFQ trading, then restarted`,
  async run(env: Env) {
    const base = () => env.api.baseUrl;
    const domain = await fetchDomain(base());
    const maker = await readyMaker(base(), {
      operatorToken: DRILL_OPERATOR_TOKEN,
      siweDomain: DRILL_SIWE_DOMAIN,
      domain,
      collateralMicros: 200_000_000,
    });
    maker.autoQuote(() => ({ odds_bps: 30_000, max_fill_micros: 1_000_000 }));
    const taker = await fundWallet(base(), randomWallet(), DRILL_SIWE_DOMAIN, 100_000_000);
    const { marketId } = await currentMarketId(base(), 'BTC', 86400); // a day window: betting stays open

    const stream = await DepositStream.create(env);
    stream.start();
    await sleep(3000);

    stream.phase = 'fault';
    await env.workers.stop('SIGKILL');
    const outageStarted = Date.now();
    const readyz: Record<string, number> = {};
    const workersCheck: Record<string, number> = {};
    const reads: Record<string, number> = {};
    const rfqs: Record<string, number> = {};
    let tick = 0;
    while (Date.now() - outageStarted < OUTAGE_MS) {
      const r = await fetch(`${base()}/readyz`).catch(() => null);
      count(readyz, r?.status ?? 'error');
      if (r) count(workersCheck, ((await r.json()) as { checks?: { workers?: string } }).checks?.workers ?? 'none');
      for (const path of ['/v1/contests', `/v1/markets/current?asset=ETH&duration_secs=86400`, `/v1/markets/${marketId}`]) {
        count(reads, (await fetch(`${base()}${path}`).catch(() => null))?.status ?? 'error');
      }
      if (tick++ % 4 === 0) {
        const order = buildOrder(taker.wallet.address, [{ market_id: marketId, direction: 'up' }], { stake_micros: 1_000_000 });
        const res = await postOrder(base(), taker, domain, order).catch(() => null);
        count(rfqs, res ? `${res.status} ${res.body?.status ?? res.body?.code}` : 'error');
      }
      await sleep(1000);
    }
    const outageMs = Date.now() - outageStarted;
    stream.phase = 'after';
    await env.startWorkers();
    const readyAfterMs = await waitReady(env).catch(() => -1);
    await sleep(4000);
    await stream.stop();
    maker.close();
    const verdict = await verify(env, stream);
    const answers = stream.summary();
    const faultDeposits = answers.fault ?? {};
    const ok =
      verdict.ok &&
      Object.keys(readyz).every((s) => s === '200') &&
      (workersCheck.stale ?? 0) > 0 &&
      Object.keys(reads).every((s) => s === '200') &&
      Object.keys(rfqs).every((s) => s === '201 filled') &&
      (rfqs['201 filled'] ?? 0) > 0 &&
      Object.keys(faultDeposits).every((s) => s === '202') &&
      (faultDeposits['202'] ?? 0) > 0;
    return {
      ok,
      report: {
        outage_ms: outageMs,
        during_outage: { readyz, readyz_workers_check: workersCheck, public_reads: reads, rfq_orders: rfqs },
        deposits: answers,
        ready_after_restart_ms: readyAfterMs,
        verdict,
      },
    };
  },
};
