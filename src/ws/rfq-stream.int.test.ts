// The RFQ side of the market-maker WebSocket across two real API processes (A and B) on one PostgreSQL
// database and one Redis: subscriptions and their filters, the `rfq` fan-out from the bus, quote intake
// (ack, replace, client ids, the per-connection budget), quote_result on every connection of a wallet on
// both processes, removal ending a wallet's connections on the other process through the bus, and the
// sweeper closing an RFQ whose creating process was SIGKILLed. Every frame received is checked against
// spec/asyncapi.yaml.
//
// RFQs are POSTed to A (POST /v1/rfq) by a taker signed in there; makers hear them on B. Makers' collateral
// is credited straight into the ledger of the shared database; mm.event frames are published on a bus of
// this process (the real bus: the service processes hear it exactly as they hear each other).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MarketMakerClient, type ServerMessage, type WsMessages } from '@contest-rfq/sdk';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import type { Bus } from '../bus/bus.js';
import { createBus } from '../bus/create.js';
import { readDeploymentId } from '../bus/deployment.js';
import { loadConfig } from '../config.js';
import { createOrm, type Orm } from '../db/orm.js';
import { db } from '../db/schema.js';
import { ensureWindows } from '../domain/markets/markets.js';
import { rfqDomainOf, type Direction, type RfqDomain, type RfqOrderJson } from '../domain/rfq/typed-data.js';
import { call } from '../testing/identity.js';
import { newTaker, postOrder, type Party } from '../testing/rfq-trade.js';
import { TEST_REDIS_URL } from '../testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { fundedUser } from '../testing/funding.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const QUOTES_PER_SECOND = 5;
const ENV = {
  MM_MAX_QUOTES_PER_SECOND: String(QUOTES_PER_SECOND),
  // No heartbeat tick during the suite: a removal can only reach the other process through the bus.
  MM_HEARTBEAT_INTERVAL_MS: '600000',
  // Wide enough for the sweeper case's maker to quote in time on a loaded machine.
  RFQ_QUOTE_WINDOW_MS: '4000',
  RFQ_MAX_OPEN_PER_USER: '1000',
};

let t: TestService;
let b: ServiceProcess;
let orm: Orm;
let bus: Bus;
let signingDomain: RfqDomain;
let taker: Party;
let nonce = Date.now();
const windows: Record<string, number> = {};
const clients: MarketMakerClient[] = [];
/** Extra service processes a test starts (stopped in afterAll even when the test fails). */
const extraProcesses: ServiceProcess[] = [];
const invalidFrames: unknown[] = [];

const wsUrl = (svc: ServiceProcess) => `${svc.baseUrl.replace(/^http/, 'ws')}/v1/ws`;
const em = () => orm.em.fork();

beforeAll(async () => {
  t = await startTestService('rfqstream', ENV);
  b = await startServiceProcess({ env: t.env });
  const config = loadConfig(t.env);
  signingDomain = rfqDomainOf(config.rfq);
  orm = await createOrm({ databaseUrl: t.db.url });
  bus = await createBus({ prefix: t.env.QUEUE_PREFIX!, redisUrl: TEST_REDIS_URL, deploymentId: await readDeploymentId(db(em())) });
  // Windows far enough ahead that betting stays open through the suite.
  const keys = (['BTC/300', 'ETH/300', 'BTC/900', 'SOL/300'] as const).map((k) => {
    const [asset, d] = k.split('/') as [string, string];
    const durationSecs = Number(d);
    const startAtMs = (Math.floor(Date.now() / (durationSecs * 1000)) + 1) * durationSecs * 1000;
    return { k, asset, durationSecs, startAtMs };
  });
  await ensureWindows(em(), keys);
  for (const w of keys) {
    const row = await db(em())
      .selectFrom('markets')
      .select('market_id')
      .where('kind', '=', 'rfq_window')
      .where('asset', '=', w.asset)
      .where('duration_secs', '=', w.durationSecs)
      .where('start_at_ms', '=', String(w.startAtMs))
      .executeTakeFirstOrThrow();
    windows[w.k] = Number(row.market_id);
  }
  taker = await newTaker(t.svc.baseUrl, t.privy, 1_000_000_000);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  for (const p of extraProcesses) await p.stop('SIGKILL');
  await bus?.close();
  await orm?.close(true);
  await b?.stop();
  await t?.stop();
}, 60_000);

afterEach(() => {
  // Every frame any client received in the test matches spec/asyncapi.yaml.
  expect(invalidFrames.splice(0)).toEqual([]);
});

const userWithFunds = (address: string, funds: bigint) => fundedUser(em, address, funds);

/** A registered market maker whose wallet also has a funded user account (its collateral). */
async function maker(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  const res = await call(t.svc.baseUrl, 'POST /v1/admin/market-makers', {
    token: t.operatorToken,
    body: { wallet_address: account.address, name: 'RFQ stream test' },
  });
  expect(res.status).toBe(201);
  await userWithFunds(account.address, 1_000_000_000n);
  return account;
}

interface Conn {
  client: MarketMakerClient;
  frames: ServerMessage[];
  /** Resolves with the first frame (received so far or later) that matches. */
  waitFor<T extends ServerMessage['type']>(
    type: T,
    pred?: (m: Extract<ServerMessage, { type: T }>) => boolean,
  ): Promise<Extract<ServerMessage, { type: T }>>;
  rfqIds(): string[];
  closed: Promise<{ code: number; reason: string }>;
}

/** An authenticated SDK client on one process, recording (and schema-checking) every frame. */
async function connect(svc: ServiceProcess, account: PrivateKeyAccount): Promise<Conn> {
  const client = new MarketMakerClient({ url: wsUrl(svc), account, reconnect: false, rfqDomain: signingDomain });
  clients.push(client);
  const frames: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  client.on('frame', (f) => {
    if (!validateServerMessage(f)) invalidFrames.push({ frame: f, errors: validateServerMessage.errors });
    frames.push(f);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => client.once('close', resolve));
  const waitFor: Conn['waitFor'] = (type, pred = () => true) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const hit = frames.find((f) => f.type === type && pred(f as never));
        if (!hit) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(hit as never);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching ${type} frame; received: ${JSON.stringify(frames.map((f) => f.type))}`));
      }, 15_000);
      if (!check()) waiters.add(check);
    });
  await client.start().waitForSession();
  return {
    client,
    frames,
    waitFor,
    closed,
    rfqIds: () => frames.filter((f): f is WsMessages.RfqMessage => f.type === 'rfq').map((f) => f.rfq_id),
  };
}

type LegKey = 'BTC/300' | 'ETH/300' | 'BTC/900' | 'SOL/300';

function order(legs: Array<[LegKey, Direction]>, over: Partial<RfqOrderJson> = {}): RfqOrderJson {
  return {
    taker: taker.wallet.address,
    legs: legs.map(([k, direction]) => ({ market_id: windows[k]!, direction })),
    stake_micros: 2_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK',
    nonce: ++nonce,
    deadline_ms: Date.now() + 55_000,
    ...over,
  };
}

/** The `Rfq` body of POST /v1/rfq (the fields these tests read). */
interface PostedRfq {
  rfq_id: string;
  status: string;
  fill_mode: 'best' | 'manual';
  stake_micros: string;
  created_at_ms: number;
  quote_deadline_ms: number;
  expires_at_ms: number;
  order: RfqOrderJson;
}

/** A taker's POST /v1/rfq on A (manual: answered at once, the RFQ stays open until its deadline). */
async function openRfq(legs: Array<[LegKey, Direction]>): Promise<PostedRfq> {
  const res = await postOrder(t.svc.baseUrl, taker, signingDomain, order(legs), { fillMode: 'manual' });
  if (res.status !== 201) throw new Error(`POST /v1/rfq answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as PostedRfq;
}

const quoteFor = (
  rfq: Pick<PostedRfq, 'rfq_id' | 'stake_micros' | 'expires_at_ms'>,
  over: Partial<{ odds_bps: number; max_fill_micros: number; client_quote_id: string }> = {},
) => ({
  rfq_id: rfq.rfq_id,
  odds_bps: 19_000,
  max_fill_micros: Number(rfq.stake_micros),
  valid_until_ms: rfq.expires_at_ms,
  ...over,
});

describe('RFQ stream across two API processes', () => {
  it('sends each RFQ once to the subscribed connections whose filters match a leg, on both processes', async () => {
    const [m1, m2, m3, m4] = await Promise.all([maker(), maker(), maker(), maker()]);
    const btc5 = await connect(b, m1!);
    const eth = await connect(b, m2!);
    const everything = await connect(t.svc, m3!);
    const none = await connect(b, m4!);
    expect(await btc5.client.subscribe({ assets: ['BTC', 'DOGE'], durations: [300] })).toEqual({
      type: 'subscribed',
      assets: ['BTC'],
      durations: [300],
      cancel_on_disconnect: false,
    });
    const config = loadConfig(t.env);
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
      taker_address: taker.wallet.address.toLowerCase(),
      legs: [
        { market_id: windows['BTC/900'], asset: 'BTC', duration_secs: 900, direction: 'up' },
        { market_id: windows['ETH/300'], asset: 'ETH', duration_secs: 300, direction: 'up' },
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
    const ws = new WebSocket(wsUrl(b));
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
    const onA = await connect(t.svc, m);
    const onB = await connect(b, m);
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
    expect(await onB.client.cancelQuote(rfq.rfq_id, second.quote_id!)).toMatchObject({ accepted: true, quote_id: second.quote_id, error: null });
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
    const onA = await connect(t.svc, m);
    const onB = await connect(b, m);
    const other = await connect(b, await maker());
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
    await bus.publish('mm.event', { topic: 'mm.event', wallet, frame: settled });
    await bus.publish('mm.event', { topic: 'mm.event', wallet, frame: broken });
    await bus.publish('mm.event', { topic: 'mm.event', wallet, frame: fence });
    for (const c of [onA, onB]) {
      await c.waitFor('position_settled', (f) => f.position_id === fence.position_id);
      expect(c.frames.filter((f) => f.type === 'position_settled')).toEqual([settled, fence]);
    }
    // Another wallet's connection got none of them: a frame of its own arrives first.
    const own = { ...settled, position_id: randomUUID() };
    await bus.publish('mm.event', { topic: 'mm.event', wallet: other.client.address.toLowerCase(), frame: own });
    await other.waitFor('position_settled', (f) => f.position_id === own.position_id);
    expect(other.frames.filter((f) => f.type === 'position_settled')).toEqual([own]);
  });

  it(`answers quotes past ${QUOTES_PER_SECOND} per second on a connection with quote_ack rate_limited, recording nothing (subscribes: error rate_limited)`, async () => {
    const m = await maker();
    const c = await connect(b, m);
    const rfq = await openRfq([['BTC/300', 'up']]);
    const acks = await Promise.all(Array.from({ length: 4 * QUOTES_PER_SECOND }, (_, i) => c.client.quote(quoteFor(rfq, { odds_bps: 15_000 + i }))));
    // The bucket starts full: the first burst is recorded, then the rate is the limit.
    expect(acks.slice(0, QUOTES_PER_SECOND).every((a) => a.accepted)).toBe(true);
    const limited = acks.filter((a) => a.error === 'rate_limited');
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited)
      expect(a).toEqual({ type: 'quote_ack', rfq_id: rfq.rfq_id, quote_id: null, client_quote_id: null, accepted: false, error: 'rate_limited' });
    const accepted = acks.filter((a) => a.accepted);
    expect(accepted.length + limited.length).toBe(acks.length);
    const recorded = await db(em()).selectFrom('rfq_quotes').select('id').where('maker_address', '=', m.address.toLowerCase()).execute();
    expect(recorded.map((r) => r.id).sort()).toEqual(accepted.map((a) => a.quote_id).sort());

    // Subscribes draw on the same budget; past it they get `error` rate_limited.
    const fresh = await connect(b, m);
    const answers = await Promise.allSettled(Array.from({ length: 4 * QUOTES_PER_SECOND }, () => fresh.client.subscribe({ assets: ['BTC'] })));
    expect(answers.slice(0, QUOTES_PER_SECOND).every((x) => x.status === 'fulfilled')).toBe(true);
    const refusedSubscribes = answers.filter((x) => x.status === 'rejected');
    expect(refusedSubscribes.length).toBeGreaterThan(0);
    for (const x of refusedSubscribes) expect(x).toMatchObject({ reason: { name: 'MarketMakerRequestError', code: 'rate_limited' } });
  });

  it("removal on A ends the wallet's connections on B at once (through the bus, not the heartbeat)", async () => {
    const m = await maker();
    const onB = await connect(b, m);
    const onA = await connect(t.svc, m);
    const gaveUp = new Promise((resolve) => onB.client.once('gave_up', resolve));
    const res = await call(t.svc.baseUrl, `DELETE /v1/admin/market-makers/${m.address}`, { token: t.operatorToken });
    expect(res.status).toBe(204);
    // MM_HEARTBEAT_INTERVAL_MS is 10 minutes here: only the mm.removed message can end B's connection
    // within the test's time.
    expect(await onB.closed).toMatchObject({ code: 4004 });
    expect(onB.frames.map((f) => f.type)).toContain('AUTH_EXPIRED');
    expect(await gaveUp).toMatchObject({ code: 'removed' });
    expect(await onA.closed).toMatchObject({ code: 4004 });
  });

  it('the example market maker subscribes and quotes every RFQ at fair parlay odds less its spread', async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const res = await call(t.svc.baseUrl, 'POST /v1/admin/market-makers', {
      token: t.operatorToken,
      body: { wallet_address: account.address, name: 'Example MM' },
    });
    expect(res.status).toBe(201);
    await userWithFunds(account.address, 1_000_000_000n);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'examples/market-maker-client.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', MM_PRIVATE_KEY: key, WS_URL: wsUrl(b), MM_MAX_FILL_MICROS: '1500000', MM_ASSETS: 'ETH' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const seen = (pred: (l: string) => boolean) =>
      new Promise<void>((resolve) => {
        if (lines.some(pred)) return resolve();
        const rl = createInterface({ input: proc.stdout! });
        rl.on('line', (l) => pred(l) && (rl.close(), resolve()));
      });
    createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(l));
    try {
      await seen((l) => l.includes(' subscribed '));
      const one = await openRfq([['ETH/300', 'up']]);
      const two = await openRfq([
        ['ETH/300', 'down'],
        ['BTC/300', 'up'],
      ]);
      await seen((l) => l.includes('quote recorded') && l.includes(two.rfq_id));
      const quotes = await db(em())
        .selectFrom('rfq_quotes')
        .select(['rfq_id', 'odds_bps', 'max_fill', 'valid_until_ms', 'status'])
        .where('maker_address', '=', account.address.toLowerCase())
        .orderBy('received_at_ms')
        .execute();
      // 1 leg: fair 2.0 less 5% = 1.9; 2 legs: fair 4.0 less 5% = 3.8; fill capped at MM_MAX_FILL_MICROS; firm until expiry.
      expect(quotes.map((q) => [q.rfq_id, q.odds_bps, String(q.max_fill), String(q.valid_until_ms), q.status])).toEqual([
        [one.rfq_id, 19_000, '1500000', String(one.expires_at_ms), 'live'],
        [two.rfq_id, 38_000, '1500000', String(two.expires_at_ms), 'live'],
      ]);
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('the sweeper closes (and fills) an RFQ whose API process was SIGKILLed inside its quote window', async () => {
    const m = await maker();
    const c = await connect(b, m);
    await c.client.subscribe({ assets: ['BTC'], durations: [900] });
    // A third API process takes the best-mode POST; it holds the answer for the quote window, and its timer
    // would close the RFQ at the deadline. It dies first: only a sweep (on A or B) can close the RFQ.
    const owner = await startServiceProcess({ env: t.env, args: ['--role=api'] });
    extraProcesses.push(owner);
    const o = order([['BTC/900', 'up']], { deadline_ms: Date.now() + 30_000 });
    const posted = postOrder(owner.baseUrl, taker, signingDomain, o, { fillMode: 'best' }).catch((err: Error) => err);
    const rfq = await c.waitFor(
      'rfq',
      (f) => f.taker_address === taker.wallet.address.toLowerCase() && f.fill_mode === 'best' && f.legs[0]?.market_id === windows['BTC/900'],
    );
    const rfqId = rfq.rfq_id;
    const ack = await c.client.quote(quoteFor(rfq, { odds_bps: 19_000 }));
    expect(ack).toMatchObject({ accepted: true });
    expect(await owner.stop('SIGKILL')).toBeNull();
    expect(await posted).toBeInstanceOf(Error); // the taker's request died with the process (a retry with its key returns the RFQ)

    expect(rfq).toMatchObject({ fill_mode: 'best', order_type: 'FOK', stake_micros: String(o.stake_micros) });
    const result = await c.waitFor('quote_result', (f) => f.quote_id === ack.quote_id);
    expect(result).toMatchObject({ status: 'filled', reason: null, fill_stake_micros: '2000000', odds_bps: 19_000, liability_micros: '1800000' });
    expect(result.position_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await c.waitFor('rfq_closed', (f) => f.rfq_id === rfqId)).toMatchObject({ status: 'filled' });
    const row = await db(em()).selectFrom('rfqs').select(['status', 'position_id']).where('id', '=', rfqId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'filled', position_id: result.position_id });
    // Closed by a sweep (the owner's timer died with it), on whichever surviving process ran the job.
    const swept = (l: Record<string, unknown>) => l.msg === 'overdue RFQs swept' && Array.isArray(l.rfq_ids) && l.rfq_ids.includes(rfqId);
    await Promise.any([t.svc.waitForLog(swept, 15_000), b.waitForLog(swept, 15_000)]);
  });
});
