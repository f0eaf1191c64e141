// The user channel (spec/asyncapi.yaml "User channel"; docs/user-channel.md) on two API processes with workers, with
// Redis and with PostgreSQL only: a taker connected to process B through the SDK's UserClient receives, in order
// and exactly once, the events of a deposit, an RFQ created and filled on process A and a withdrawal; it drops
// mid-way and resumes on A with since_seq: the union of the frames equals the durable event log (no gap, no
// duplicate), every frame matches the AsyncAPI, the last balance frame equals GET balances and the ledger
// statement sums to it. Then the refusals: a bad session token, the per-user cap, resync_required.
import { randomUUID } from 'node:crypto';
import { UserClient } from '@contest-rfq/sdk';
import { describe, expect, it } from 'vitest';
import type { UserEventMessage } from '../../generated/asyncapi/types.js';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createWithdrawal, listLedgerMovements } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { balances, buildOrder, deposit, postOrder } from '../testing/rfq-trade.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

const wsUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/v1/ws`;

/** A raw connection: sends frames, collects every frame received. */
async function rawConnection(baseUrl: string) {
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(wsUrl(baseUrl));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames of every type, checked by each test
  const frames: any[] = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const next = async (type: string) => {
    await expect.poll(() => frames.find((f) => f.type === type), { timeout: 10_000, interval: 20 }).toBeTruthy();
    return frames.splice(
      frames.findIndex((f) => f.type === type),
      1,
    )[0];
  };
  return { ws, frames, closed, next, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

describe.each(BACKENDS)('user channel (%s)', (backend) => {
  const h = useTwoProcesses('uchan', backend, { USER_WS_MAX_PER_USER: '2' });

  async function logOf(userId: string) {
    const r = await h.t.sql.query<{ seq: string; kind: string; at_ms: string; payload: unknown }>(
      'select seq, kind, at_ms, payload from user_events where user_id = $1 order by seq',
      [userId],
    );
    return r.rows.map((x) => ({ type: 'user_event', seq: Number(x.seq), kind: x.kind, at_ms: Number(x.at_ms), payload: x.payload }));
  }

  it('a deposit, an RFQ filled on A and a withdrawal reach the taker on B in order and exactly once, across a resume on A', async () => {
    const taker = await h.taker(0);
    const maker = await h.maker(h.a);
    const received: UserEventMessage[] = [];
    const raw: UserEventMessage[] = []; // every frame the service sent, before the SDK's seq guard
    const first = new UserClient({ url: wsUrl(h.b.baseUrl), sessionToken: taker.token, reconnect: false });
    first.on('event', (e) => received.push(e));
    first.on('frame', (e) => raw.push(e));
    const subscribed = first.nextEvent('subscribed', 10_000);
    first.start();
    await subscribed;

    await deposit(h.a.baseUrl, taker.token, 50 * USDC);
    await expect
      .poll(() => received.find((e) => e.kind === 'balance' && 'available_micros' in e.payload && e.payload.available_micros === '50000000'), {
        timeout: 10_000,
      })
      .toBeTruthy();

    const order = buildOrder(taker.wallet.address, [{ market_id: h.markets.btc, direction: 'up' }], { stake_micros: 2 * USDC });
    maker.autoQuote(() => ({ odds_bps: 21_000, max_fill_micros: 2 * USDC })); // before the best-mode quote deadline
    const res = await postOrder(h.a.baseUrl, taker, h.domain, order);
    expect(res.status).toBe(201);
    const rfqId = res.body.rfq_id as string;
    expect(await maker.next('quote_result', (f) => f.rfq_id === rfqId, 20_000)).toMatchObject({ status: 'filled' });
    const rfqEvents = () => received.filter((e) => e.kind === 'rfq' && 'rfq_id' in e.payload && e.payload.rfq_id === rfqId);
    await expect.poll(() => rfqEvents().map((e) => (e.payload as { event: string }).event), { timeout: 10_000 }).toContain('filled');
    expect(rfqEvents().map((e) => (e.payload as { event: string }).event)).toEqual(['created', 'quoted', 'filled']);
    await expect.poll(() => received.some((e) => e.kind === 'position'), { timeout: 10_000 }).toBe(true);

    // Disconnect mid-way; the withdrawal commits while no connection is open; resume on the other process.
    first.stop();
    const lastSeq = first.lastSeq;
    const w = await sent(
      createWithdrawal({
        client: sdkClient(h.a.baseUrl, taker.token),
        body: { amount_micros: 3 * USDC, destination_address: randomWallet().address, idempotency_key: randomUUID() },
      }),
    );
    expect(w.status).toBe(200);
    const second = new UserClient({ url: wsUrl(h.a.baseUrl), sessionToken: taker.token, sinceSeq: lastSeq });
    second.on('event', (e) => received.push(e));
    second.on('frame', (e) => raw.push(e));
    second.start();
    await expect
      .poll(
        () => received.some((e) => e.kind === 'operation' && 'kind' in e.payload && e.payload.kind === 'withdraw' && e.payload.status !== 'pending'),
        {
          timeout: 15_000,
        },
      )
      .toBe(true);
    // Settle: nothing more is in flight once the log stops growing and the client has all of it.
    await expect.poll(async () => (await logOf(taker.userId)).length === second.lastSeq, { timeout: 10_000 }).toBe(true);
    second.stop();

    const log = await logOf(taker.userId);
    expect(received.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1)); // 1..n: no gap, no duplicate, in order
    expect(received).toEqual(log);
    expect(raw).toEqual(log); // the service itself sent each event once: the resume replayed only what was missed
    for (const e of received) expect(validateServerMessage(e), JSON.stringify(validateServerMessage.errors)).toBe(true);
    expect(received.map((e) => e.kind)).toEqual(expect.arrayContaining(['balance', 'operation', 'rfq', 'position']));

    const lastBalance = [...received].reverse().find((e) => e.kind === 'balance')!.payload as { available_micros: string; reserved_micros: string };
    const now = await balances(h.a.baseUrl, taker.token);
    expect({ available: lastBalance.available_micros, reserved: lastBalance.reserved_micros }).toEqual(now);
    const movements = await sent(listLedgerMovements({ client: sdkClient(h.a.baseUrl, taker.token), query: { limit: 100 } }));
    const sum = movements.data!.movements.reduce((s, m) => s + BigInt(m.change.available_micros), 0n);
    expect(String(sum)).toBe(now.available);
  }, 120_000);

  it('refuses a bad session token, caps connections per user (USER_WS_MAX_PER_USER across processes), and says resync_required', async () => {
    const bad = await rawConnection(h.b.baseUrl);
    bad.send({ type: 'auth', session_token: 'us_not-a-token' });
    expect(await bad.next('auth_result')).toMatchObject({ success: false, error: 'invalid_session_token' });
    bad.send({ type: 'subscribe', channel: 'user', since_seq: 0 });
    expect(await bad.next('error')).toMatchObject({ code: 'not_authenticated' });
    bad.ws.close();

    const user = await h.taker(5 * USDC);
    const conns = [await rawConnection(h.a.baseUrl), await rawConnection(h.b.baseUrl), await rawConnection(h.b.baseUrl)];
    for (const c of conns.slice(0, 2)) {
      c.send({ type: 'auth', session_token: user.token });
      expect(await c.next('auth_result')).toMatchObject({ success: true, session_token: user.token });
    }
    conns[2]!.send({ type: 'auth', session_token: user.token });
    expect(await conns[2]!.next('auth_result')).toMatchObject({ success: false, error: 'too_many_connections' });
    expect(await conns[2]!.closed).toBe(1008);

    // Behind the newest event (a since_seq from elsewhere): resync_required, then live after resume_seq.
    const head = (await logOf(user.userId)).length;
    conns[0]!.send({ type: 'subscribe', channel: 'user', since_seq: head + 10 });
    expect(await conns[0]!.next('subscribed')).toMatchObject({ channel: 'user', since_seq: head + 10 });
    expect(await conns[0]!.next('resync_required')).toEqual({ type: 'resync_required', since_seq: head + 10, resume_seq: head });
    await deposit(h.b.baseUrl, user.token, USDC);
    const live = await conns[0]!.next('user_event');
    expect(live.seq).toBe(head + 1);
    for (const c of conns) c.ws.close();
    // A closed connection frees its slot (on every process): a new one authenticates.
    await new Promise((r) => setTimeout(r, 500));
    const again = await rawConnection(h.a.baseUrl);
    again.send({ type: 'auth', session_token: user.token });
    expect(await again.next('auth_result')).toMatchObject({ success: true });
    again.ws.close();
  }, 60_000);
});
