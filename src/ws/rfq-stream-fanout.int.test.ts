// The RFQ stream across two real API processes (src/testing/rfq-stream.ts): subscriptions and their filters,
// the `rfq` fan-out from the bus, refusals before authentication, quote intake (ack, replace, client ids,
// cancel) with quote_result on every connection of a wallet on both processes, and mm.event frames.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { loadConfig } from '../config/load.js';
import { db } from '../db/schema.js';
import { connect, em, invalidFrames, maker, openRfq, quoteFor, useRfqStream, wsUrl } from '../testing/rfq-stream.js';

const s = useRfqStream('rfqstreamf');

describe('RFQ stream across two API processes', () => {
  it('sends each RFQ once to the subscribed connections whose filters match a leg, on both processes', async () => {
    const [m1, m2, m3, m4] = await Promise.all([maker(), maker(), maker(), maker()]);
    const btc5 = await connect(s.b, m1!);
    const eth = await connect(s.b, m2!);
    const everything = await connect(s.t.svc, m3!);
    const none = await connect(s.b, m4!);
    expect(await btc5.client.subscribe({ assets: ['BTC', 'DOGE'], durations: [300] })).toEqual({
      type: 'subscribed',
      assets: ['BTC'],
      durations: [300],
      cancel_on_disconnect: false,
    });
    const config = loadConfig(s.t.env);
    expect(await eth.client.subscribe({ assets: ['ETH'] })).toEqual({
      type: 'subscribed',
      assets: ['ETH'],
      durations: config.markets.durations,
      cancel_on_disconnect: false,
    });
    expect(await everything.client.subscribe()).toEqual({
      type: 'subscribed',
      assets: config.markets.assets,
      durations: config.markets.durations,
      cancel_on_disconnect: false,
    });

    const btc = await openRfq([['BTC/300', 'up']]);
    const ethRfq = await openRfq([['ETH/300', 'down']]);
    const parlay = await openRfq([
      ['BTC/900', 'up'],
      ['ETH/300', 'up'],
    ]);
    const fence = await openRfq([['BTC/300', 'down']]);

    // One publisher's messages arrive in order: once the last one matching a connection is in, any other
    // frame for it would have arrived before.
    await btc5.waitFor('rfq', (f) => f.rfq_id === fence.rfq_id);
    expect(btc5.rfqIds()).toEqual([btc.rfq_id, fence.rfq_id]);
    await eth.waitFor('rfq', (f) => f.rfq_id === parlay.rfq_id);
    expect(eth.rfqIds()).toEqual([ethRfq.rfq_id, parlay.rfq_id]);
    await everything.waitFor('rfq', (f) => f.rfq_id === fence.rfq_id);
    expect(everything.rfqIds()).toEqual([btc.rfq_id, ethRfq.rfq_id, parlay.rfq_id, fence.rfq_id]);
    // The frame is the RFQ as POSTed, with each leg's window; the taker's min_odds_bps is not in it.
    const frame = everything.frames.find((f) => f.type === 'rfq' && f.rfq_id === parlay.rfq_id);
    expect(frame).toMatchObject({
      type: 'rfq',
      rfq_id: parlay.rfq_id,
      created_at_ms: parlay.created_at_ms,
      quote_deadline_ms: parlay.quote_deadline_ms,
      expires_at_ms: parlay.expires_at_ms,
      fill_mode: 'manual',
      order_type: 'FOK',
      stake_micros: '2000000',
      taker_address: s.taker.wallet.address.toLowerCase(),
      legs: [
        { market_id: s.windows['BTC/900'], asset: 'BTC', duration_secs: 900, direction: 'up' },
        { market_id: s.windows['ETH/300'], asset: 'ETH', duration_secs: 300, direction: 'up' },
      ],
    });
    expect(frame).not.toHaveProperty('min_odds_bps');

    // A connection that never subscribed got none of them: it subscribes now, and the next RFQ is its first.
    await none.client.subscribe({ assets: ['SOL'] });
    const sol = await openRfq([['SOL/300', 'up']]);
    await none.waitFor('rfq', (f) => f.rfq_id === sol.rfq_id);
    expect(none.rfqIds()).toEqual([sol.rfq_id]);

    // A later subscribe replaces the earlier one.
    await btc5.client.subscribe({ assets: ['SOL'], durations: [300] });
    const sol2 = await openRfq([['SOL/300', 'down']]);
    await btc5.waitFor('rfq', (f) => f.rfq_id === sol2.rfq_id);
    expect(btc5.rfqIds()).toEqual([btc.rfq_id, fence.rfq_id, sol2.rfq_id]);
  });

  it('refuses subscribe, quote and quote_cancel before authentication (error not_authenticated)', async () => {
    const ws = new WebSocket(wsUrl(s.b));
    const frames: Array<Record<string, unknown>> = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as Record<string, unknown>;
      if (!validateServerMessage(f)) invalidFrames.push(f);
      frames.push(f);
      for (const w of waiters.splice(0)) w();
    });
    await new Promise((r) => ws.once('open', r));
    const rfqId = randomUUID();
    ws.send(JSON.stringify({ type: 'subscribe' }));
    ws.send(
      JSON.stringify({
        type: 'quote',
        rfq_id: rfqId,
        odds_bps: 20_000,
        max_fill_micros: 1,
        valid_until_ms: Date.now() + 9_000,
        signature: `0x${'ab'.repeat(65)}`,
      }),
    );
    ws.send(JSON.stringify({ type: 'quote_cancel', rfq_id: rfqId, quote_id: randomUUID() }));
    while (frames.length < 3) await new Promise<void>((r) => waiters.push(r));
    expect(frames.map((f) => [f.type, f.code])).toEqual([
      ['error', 'not_authenticated'],
      ['error', 'not_authenticated'],
      ['error', 'not_authenticated'],
    ]);
    ws.close();
  });

  it('quote -> quote_ack; a re-quote replaces the live one, whose quote_result reaches the wallet on both processes; client ids; cancel', async () => {
    const m = await maker();
    const onA = await connect(s.t.svc, m);
    const onB = await connect(s.b, m);
    const rfq = await openRfq([['ETH/300', 'up']]);
    const cid = randomUUID();
    const first = await onB.client.quote(quoteFor(rfq, { client_quote_id: cid }));
    expect(first).toMatchObject({ type: 'quote_ack', rfq_id: rfq.rfq_id, client_quote_id: cid, accepted: true, error: null });
    expect(first.quote_id).toMatch(/^[0-9a-f-]{36}$/);
    // The same quote under the same client id again: the same ack (a safe retry), nothing new recorded.
    expect(await onB.client.quote(quoteFor(rfq, { client_quote_id: cid }))).toEqual(first);
    // Other content under that id: refused.
    expect(await onB.client.quote(quoteFor(rfq, { client_quote_id: cid, odds_bps: 18_000 }))).toEqual({
      type: 'quote_ack',
      rfq_id: rfq.rfq_id,
      quote_id: null,
      client_quote_id: cid,
      accepted: false,
      error: 'duplicate_client_quote_id',
    });

    // A new quote from the other process replaces the live one.
    const second = await onA.client.quote(quoteFor(rfq, { odds_bps: 19_500 }));
    expect(second).toMatchObject({ accepted: true, error: null, client_quote_id: null });
    expect(second.quote_id).not.toBe(first.quote_id);
    const replaced = {
      type: 'quote_result',
      quote_id: first.quote_id,
      rfq_id: rfq.rfq_id,
      client_quote_id: cid,
      status: 'not_filled',
      reason: 'replaced',
    };
    expect(await onA.waitFor('quote_result', (f) => f.quote_id === first.quote_id)).toMatchObject(replaced);
    expect(await onB.waitFor('quote_result', (f) => f.quote_id === first.quote_id)).toMatchObject(replaced);

    // Cancel: the replaced quote is no longer live; the live one is cancelled.
    expect(await onB.client.cancelQuote(rfq.rfq_id, first.quote_id!)).toMatchObject({ accepted: false, error: 'quote_not_live' });
    expect(await onB.client.cancelQuote(rfq.rfq_id, second.quote_id!)).toMatchObject({
      accepted: true,
      quote_id: second.quote_id,
      error: null,
    });
    const rows = await db(em())
      .selectFrom('rfq_quotes')
      .select(['id', 'status'])
      .where('rfq_id', '=', rfq.rfq_id)
      .orderBy('received_at_ms')
      .execute();
    expect(rows).toEqual([
      { id: first.quote_id, status: 'replaced' },
      { id: second.quote_id, status: 'cancelled' },
    ]);
  });

  it('mm.event frames (position_settled) reach every connection of the wallet on both processes; a frame that breaks the schema is not sent', async () => {
    const m = await maker();
    const onA = await connect(s.t.svc, m);
    const onB = await connect(s.b, m);
    const other = await connect(s.b, await maker());
    const wallet = m.address.toLowerCase();
    const settled = {
      type: 'position_settled' as const,
      position_id: randomUUID(),
      rfq_id: randomUUID(),
      outcome: 'lost' as const,
      maker_pnl_micros: '2000000',
      settled_at_ms: Date.now(),
    };
    const broken = { ...settled, position_id: randomUUID(), outcome: 'maybe' };
    const fence = { ...settled, position_id: randomUUID(), outcome: 'voided' as const, maker_pnl_micros: '0' };
    await s.bus.publish('mm.event', { topic: 'mm.event', wallet, frame: settled });
    await s.bus.publish('mm.event', { topic: 'mm.event', wallet, frame: broken });
    await s.bus.publish('mm.event', { topic: 'mm.event', wallet, frame: fence });
    for (const c of [onA, onB]) {
      await c.waitFor('position_settled', (f) => f.position_id === fence.position_id);
      expect(c.frames.filter((f) => f.type === 'position_settled')).toEqual([settled, fence]);
    }
    // Another wallet's connection got none of them: a frame of its own arrives first.
    const own = { ...settled, position_id: randomUUID() };
    await s.bus.publish('mm.event', { topic: 'mm.event', wallet: other.client.address.toLowerCase(), frame: own });
    await other.waitFor('position_settled', (f) => f.position_id === own.position_id);
    expect(other.frames.filter((f) => f.type === 'position_settled')).toEqual([own]);
  });
});
