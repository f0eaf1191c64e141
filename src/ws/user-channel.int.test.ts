// The user channel (spec/asyncapi.yaml "User channel"; docs/user-channel.md) on two API processes with workers, with
// Redis and with PostgreSQL only: a taker connected to process B through the SDK's UserClient receives, in order
// and exactly once, the events of a deposit, RFQs created and filled on process A, their window's settlement (a
// 8-second window, resolved by the workers from the demo feed), a contest entry and a withdrawal; it disconnects
// mid-way and resumes on A with since_seq: the union of the frames equals the durable event log (no gap, no
// duplicate), every frame matches the AsyncAPI (and its payload the shape its kind names), the last balance frame
// equals GET balances and the whole ledger statement sums to it. Then the refusals (a bad session token, the
// per-user cap, resync_required), the retention prune job, and a logged-out session's sockets closed.
import { randomUUID } from 'node:crypto';
import { UserClient } from '@contest-rfq/sdk';
import { describe, expect, it } from 'vitest';
import type { UserEventMessage } from '../../generated/asyncapi/types.js';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createContestEntry, createSession, createWithdrawal, logout } from '../../generated/openapi/sdk.gen.js';
import { JOB } from '../jobs/queues.js';
import { newContest } from '../testing/contests.js';
import { randomWallet } from '../testing/identity.js';
import { balances, buildOrder, deposit, postOrder } from '../testing/rfq-trade.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';
import {
  eventLog,
  ledgerTotals,
  payloadMatchesKind,
  rawConnection,
  runHousekeepingJob,
  windowWithBettingLeft,
  wsUrl,
} from '../testing/user-channel.js';

/** Short windows beside the day windows of the two-process stack: a position opened here settles within the test. */
const WINDOW_SECS = 8;
const BETTING_BUFFER_MS = 2500;
/** Quotes have this long (a loaded CI box answers late); an order is placed only with more betting left than that. */
const QUOTE_WINDOW_MS = 1500;

type Payload = Record<string, unknown>;
const payload = (e: UserEventMessage) => e.payload as Payload;

describe.each(BACKENDS)('user channel (%s)', (backend) => {
  const h = useTwoProcesses('uchan', backend, {
    USER_WS_MAX_PER_USER: '2',
    MARKET_DURATIONS: `${WINDOW_SECS},86400`,
    MARKET_BETTING_CLOSE_BUFFER_MS: String(BETTING_BUFFER_MS),
    RESOLUTION_DELAY_MS: '0',
    RFQ_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS),
  });
  const logOf = (userId: string) => eventLog(h.t.sql, userId);

  it('a deposit, RFQs filled on A, their settlement, a contest entry and a withdrawal reach the taker on B in order and exactly once, across a resume on A', async () => {
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
    const seen = (kind: string, pred: (p: Payload) => boolean) => received.some((e) => e.kind === kind && pred(payload(e)));

    await deposit(h.a.baseUrl, taker.token, 50 * USDC);
    await expect.poll(() => seen('balance', (p) => p.available_micros === '50000000'), { timeout: 10_000 }).toBe(true);

    // Two RFQs on one short window, up and down: both fill, and when the window settles one of them pays.
    maker.autoQuote(() => ({ odds_bps: 19_000, max_fill_micros: 2 * USDC })); // before the best-mode quote deadline
    const w = await windowWithBettingLeft(h.a.baseUrl, 'BTC', WINDOW_SECS, QUOTE_WINDOW_MS + 1500);
    const orders = (['up', 'down'] as const).map((direction) =>
      buildOrder(taker.wallet.address, [{ market_id: w.marketId, direction }], { stake_micros: 2 * USDC, min_odds_bps: 15_000 }),
    );
    // The contest entry meanwhile (its own contest, entered on A).
    const contest = await newContest(h.a.baseUrl, h.t.operatorToken);
    const [up, down] = await Promise.all(orders.map((o) => postOrder(h.a.baseUrl, taker, h.domain, o)));
    for (const r of [up!, down!])
      expect(r.body, JSON.stringify({ rfq: r.body, maker: maker.frames.slice(-6) })).toMatchObject({ status: 'filled' });
    const rfqIds = [up!.body.rfq_id as string, down!.body.rfq_id as string];
    const entry = await sent(
      createContestEntry({
        client: sdkClient(h.a.baseUrl, taker.token),
        path: { id: contest.id },
        body: { picks: [{ market_id: contest.markets[0]!, direction: 'up' }], idempotency_key: randomUUID() },
      }),
    );
    expect(entry.status, JSON.stringify(entry.error)).toBe(201);

    for (const rfqId of rfqIds) {
      const rfqEvents = () => received.filter((e) => e.kind === 'rfq' && payload(e).rfq_id === rfqId).map((e) => payload(e).event);
      await expect.poll(rfqEvents, { timeout: 10_000 }).toContain('filled');
      expect(rfqEvents()).toEqual(['created', 'quoted', 'filled']);
    }
    await expect
      .poll(() => seen('contest', (p) => p.contest_id === contest.id && p.event === 'entry_accepted'), { timeout: 10_000 })
      .toBe(true);
    // The window ends, the workers resolve it from the demo feed and settle both positions: on B, live.
    const settled = () => received.filter((e) => e.kind === 'position' && payload(e).event === 'settled').map((e) => payload(e));
    await expect.poll(() => settled().length, { timeout: 30_000, interval: 100 }).toBe(2);
    expect(
      settled()
        .map((p) => p.status)
        .sort(),
    ).toEqual(['lost', 'won']);
    expect(settled().find((p) => p.status === 'won')).toMatchObject({ payout_micros: '3800000', pnl_micros: '1800000' });

    // Disconnect mid-way; the withdrawal commits while no connection is open; resume on the other process.
    first.stop();
    const lastSeq = first.lastSeq;
    const wd = await sent(
      createWithdrawal({
        client: sdkClient(h.a.baseUrl, taker.token),
        body: { amount_micros: 3 * USDC, destination_address: randomWallet().address, idempotency_key: randomUUID() },
      }),
    );
    expect(wd.status).toBe(200);
    const second = new UserClient({ url: wsUrl(h.a.baseUrl), sessionToken: taker.token, sinceSeq: lastSeq });
    second.on('event', (e) => received.push(e));
    second.on('frame', (e) => raw.push(e));
    second.start();
    await expect.poll(() => seen('operation', (p) => p.kind === 'withdraw' && p.status !== 'pending'), { timeout: 15_000 }).toBe(true);
    // And live after the resume: a deposit through B reaches the connection on A.
    await deposit(h.b.baseUrl, taker.token, USDC);
    await expect
      .poll(() => seen('operation', (p) => p.kind === 'deposit' && p.amount_micros === String(USDC)), { timeout: 10_000 })
      .toBe(true);
    // Settle: nothing more is in flight once the log stops growing and the client has all of it.
    await expect.poll(async () => (await logOf(taker.userId)).length === second.lastSeq, { timeout: 10_000 }).toBe(true);
    second.stop();

    const log = await logOf(taker.userId);
    expect(received.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1)); // 1..n: no gap, no duplicate, in order
    expect(received).toEqual(log);
    expect(raw).toEqual(log); // the service itself sent each event once: the resume replayed only what was missed
    for (const e of received) {
      expect(validateServerMessage(e), JSON.stringify(validateServerMessage.errors)).toBe(true);
      expect(payloadMatchesKind(e), JSON.stringify(e)).toBe(true);
    }
    expect(new Set(received.map((e) => e.kind))).toEqual(new Set(['balance', 'operation', 'rfq', 'position', 'contest']));

    const lastBalance = payload([...received].reverse().find((e) => e.kind === 'balance')!);
    const now = await balances(h.a.baseUrl, taker.token);
    expect({ available: lastBalance.available_micros, reserved: lastBalance.reserved_micros }).toEqual(now);
    const totals = await ledgerTotals(h.a.baseUrl, taker.token, 5); // pages of 5: the cursor is followed too
    expect(totals.movements).toBeGreaterThan(5);
    expect({ available: totals.available, reserved: totals.reserved }).toEqual(now);
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
    expect((await conns[2]!.closed).code).toBe(1008);

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

  it('the prune job deletes events past USER_EVENTS_RETENTION_MS; a since_seq older than the kept log gets resync_required', async () => {
    const user = await h.taker(0);
    await deposit(h.a.baseUrl, user.token, USDC);
    const cut = (await logOf(user.userId)).length; // the first deposit's events: made 8 days old below
    await deposit(h.a.baseUrl, user.token, USDC);
    const head = (await logOf(user.userId)).length;
    await h.t.sql.query('update user_events set at_ms = at_ms - $2 where user_id = $1 and seq <= $3', [user.userId, 8 * 86_400_000, cut]);
    await h.a.waitForLog((l) => l.msg === 'workers started');
    const result = (await runHousekeepingJob(h.t.env, JOB.pruneUserEvents)) as { userEvents: number };
    expect(result.userEvents).toBeGreaterThanOrEqual(cut); // this user's aged events (no other event is 7 days old)
    expect((await logOf(user.userId)).map((e) => e.seq)).toEqual(Array.from({ length: head - cut }, (_, i) => cut + i + 1));

    const c = await rawConnection(h.b.baseUrl);
    c.send({ type: 'auth', session_token: user.token });
    expect(await c.next('auth_result')).toMatchObject({ success: true });
    // Older than the kept log: resync_required (read the history), then live after resume_seq.
    c.send({ type: 'subscribe', channel: 'user', since_seq: cut - 1 });
    expect(await c.next('subscribed')).toMatchObject({ since_seq: cut - 1 });
    expect(await c.next('resync_required')).toEqual({ type: 'resync_required', since_seq: cut - 1, resume_seq: head });
    await deposit(h.a.baseUrl, user.token, USDC);
    const newHead = (await logOf(user.userId)).at(-1)!.seq;
    const seqs = () => c.frames.filter((f) => f.type === 'user_event').map((f) => f.seq as number);
    await expect.poll(seqs, { timeout: 10_000 }).toContain(newHead);
    expect(seqs()).toEqual(Array.from({ length: newHead - head }, (_, i) => head + i + 1));
    // From the first kept event on: the replay, no resync.
    c.frames.length = 0;
    c.send({ type: 'subscribe', channel: 'user', since_seq: cut });
    expect(await c.next('subscribed')).toMatchObject({ since_seq: cut });
    await expect.poll(seqs, { timeout: 10_000 }).toContain(newHead);
    expect(c.frames.some((f) => f.type === 'resync_required')).toBe(false);
    expect(seqs()).toEqual(Array.from({ length: newHead - cut }, (_, i) => cut + i + 1));
    c.ws.close();
  }, 60_000);

  it("a logout on B ends the session's user-channel connection on A (AUTH_EXPIRED, close 4005); another session's connection stays", async () => {
    const wallet = randomWallet();
    const did = `did:privy:${randomUUID()}`;
    const signIn = async () =>
      (await sent(createSession({ client: sdkClient(h.a.baseUrl), body: { privy_token: await h.t.privy.token(did, wallet.address) } })))
        .data!;
    const [one, other] = [await signIn(), await signIn()];
    expect(one.user_id).toBe(other.user_id);
    const [onA, otherOnB] = [await rawConnection(h.a.baseUrl), await rawConnection(h.b.baseUrl)];
    for (const [c, token] of [
      [onA, one.session_token],
      [otherOnB, other.session_token],
    ] as const) {
      c.send({ type: 'auth', session_token: token });
      expect(await c.next('auth_result')).toMatchObject({ success: true });
      c.send({ type: 'subscribe', channel: 'user', since_seq: 0 });
      await c.next('subscribed');
    }
    expect((await sent(logout({ client: sdkClient(h.b.baseUrl, one.session_token) }))).status).toBe(204);
    expect(await onA.closed).toEqual({ code: 4005, reason: 'session revoked' });
    expect(onA.frames.find((f) => f.type === 'AUTH_EXPIRED')).toBeTruthy();
    // The other session's connection stays and keeps receiving the user's events.
    await deposit(h.a.baseUrl, other.session_token, USDC);
    expect(await otherOnB.next('user_event')).toMatchObject({ type: 'user_event' });
    expect(otherOnB.ws.readyState).toBe(otherOnB.ws.OPEN);
    otherOnB.ws.close();
    // The revoked token cannot come back.
    const again = await rawConnection(h.a.baseUrl);
    again.send({ type: 'auth', session_token: one.session_token });
    expect(await again.next('auth_result')).toMatchObject({ success: false, error: 'invalid_session_token' });
    again.ws.close();
  }, 60_000);
});
