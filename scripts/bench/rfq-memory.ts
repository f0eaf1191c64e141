// bench:rfq item 5 (docs/performance.md): resident memory of API process A (/proc/<pid>/status, VmRSS) per
// subscribed maker socket and per open manual-mode RFQ, each as (after - before) / count. The kernel's RSS
// includes heap the collector has not returned yet, so these are upper bounds of the live cost.
import { randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import type { Party } from '../../src/testing/rfq-trade.js';
import { pool } from './harness.js';
import { newMaker, rssKb, signOrdersAhead, sleep, type Pair } from './rfq-common.js';

export interface MemoryOptions {
  legs: number;
  sockets: number;
  openRfqs: number;
}

/** Lets the process settle (timers, pending frames) before its RSS is read. */
const SETTLE_MS = 2_000;

export async function memory(pair: Pair, takers: Party[], o: MemoryOptions) {
  const pid = pair.a.proc.pid!;
  // Sockets first, while no RFQ is open: a subscribe then costs only the socket and its subscription.
  const account = await newMaker(pair);
  const url = `${pair.a.baseUrl.replace('http', 'ws')}/v1/ws`;
  const clients: MarketMakerClient[] = [];
  await sleep(SETTLE_MS);
  const beforeSockets = rssKb(pid);
  let afterSockets = NaN;
  try {
    await pool(o.sockets, 20, async () => {
      const c = new MarketMakerClient({ url, account, reconnect: false, rfqDomain: pair.domain, log: () => undefined }).start();
      clients.push(c);
      await c.waitForSession(60_000);
      await c.subscribe();
    });
    await sleep(SETTLE_MS);
    afterSockets = rssKb(pid);
  } finally {
    await Promise.all(clients.map((c) => c.stop().catch(() => undefined)));
  }

  // Open manual-mode RFQs, created on A (its closer holds a timer for each until the deadline).
  const orders = await signOrdersAhead(pair.domain, takers, o.openRfqs, pair.marketIds.slice(0, o.legs), 'IOC');
  const deadline = orders[0]?.order.deadline_ms ?? Date.now();
  await sleep(SETTLE_MS);
  const beforeRfqs = rssKb(pid);
  let failed = 0;
  let skipped = 0;
  await pool(orders.length, 16, async (i) => {
    // On a slow machine the creates could outlast the deadline: stop early so every counted RFQ is open when RSS is read.
    if (Date.now() > deadline - 15_000) return void skipped++;
    const { taker, order, signature } = orders[i]!;
    const res = await fetch(`${pair.a.baseUrl}/v1/rfq`, {
      method: 'POST',
      headers: { authorization: `Bearer ${taker.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order, signature, fill_mode: 'manual', idempotency_key: randomUUID() }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) failed++;
  });
  const openedAt = Date.now();
  await sleep(SETTLE_MS);
  const afterRfqs = rssKb(pid);
  const stillOpen = deadline - Date.now() > 0;
  return {
    sockets: { n: o.sockets, beforeKb: beforeSockets, afterKb: afterSockets, perKb: (afterSockets - beforeSockets) / o.sockets },
    rfqs: {
      n: o.openRfqs - failed - skipped,
      failed,
      skipped,
      beforeKb: beforeRfqs,
      afterKb: afterRfqs,
      perKb: (afterRfqs - beforeRfqs) / (o.openRfqs - failed - skipped),
      /** The RSS was read before the deadline: every RFQ was still open. */
      stillOpen,
      secondsToSpare: (deadline - openedAt) / 1000,
    },
  };
}
