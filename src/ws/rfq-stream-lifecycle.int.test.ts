// The RFQ stream across two real API processes (src/testing/rfq-stream.ts), its limits and lifecycle: the
// per-connection quote budget, removal on A ending the wallet's connections on B through the bus, the example
// market maker quoting, and the sweeper closing an RFQ whose creating process was SIGKILLed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { deleteMarketMaker } from '../../generated/openapi/sdk.gen.js';
import { db } from '../db/schema.js';
import {
  connect,
  em,
  extraProcesses,
  maker,
  openRfq,
  order,
  QUOTES_PER_SECOND,
  quoteFor,
  register,
  ROOT,
  useRfqStream,
  userWithFunds,
  wsUrl,
} from '../testing/rfq-stream.js';
import { postOrder } from '../testing/rfq-trade.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { startServiceProcess } from '../testing/service-process.js';

const s = useRfqStream('rfqstreaml');

describe('RFQ stream across two API processes: limits and lifecycle', () => {
  it(`answers quotes past ${QUOTES_PER_SECOND} per second on a connection with quote_ack rate_limited, recording nothing (subscribes: error rate_limited)`, async () => {
    const m = await maker();
    const c = await connect(s.b, m);
    const rfq = await openRfq([['BTC/300', 'up']]);
    const acks = await Promise.all(
      Array.from({ length: 4 * QUOTES_PER_SECOND }, (_, i) => c.client.quote(quoteFor(rfq, { odds_bps: 15_000 + i }))),
    );
    // The bucket starts full: the first burst is recorded, then the rate is the limit.
    expect(acks.slice(0, QUOTES_PER_SECOND).every((a) => a.accepted)).toBe(true);
    const limited = acks.filter((a) => a.error === 'rate_limited');
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited)
      expect(a).toEqual({
        type: 'quote_ack',
        rfq_id: rfq.rfq_id,
        quote_id: null,
        client_quote_id: null,
        accepted: false,
        error: 'rate_limited',
      });
    const accepted = acks.filter((a) => a.accepted);
    expect(accepted.length + limited.length).toBe(acks.length);
    const recorded = await db(em()).selectFrom('rfq_quotes').select('id').where('maker_address', '=', m.address.toLowerCase()).execute();
    expect(recorded.map((r) => r.id).sort()).toEqual(accepted.map((a) => a.quote_id).sort());

    // Subscribes draw on the same budget; past it they get `error` rate_limited.
    const fresh = await connect(s.b, m);
    const answers = await Promise.allSettled(
      Array.from({ length: 4 * QUOTES_PER_SECOND }, () => fresh.client.subscribe({ assets: ['BTC'] })),
    );
    expect(answers.slice(0, QUOTES_PER_SECOND).every((x) => x.status === 'fulfilled')).toBe(true);
    const refusedSubscribes = answers.filter((x) => x.status === 'rejected');
    expect(refusedSubscribes.length).toBeGreaterThan(0);
    for (const x of refusedSubscribes) expect(x).toMatchObject({ reason: { name: 'MarketMakerRequestError', code: 'rate_limited' } });
  });

  it("removal on A ends the wallet's connections on B at once (through the bus, not the heartbeat)", async () => {
    const m = await maker();
    const onB = await connect(s.b, m);
    const onA = await connect(s.t.svc, m);
    const gaveUp = new Promise((resolve) => onB.client.once('gave_up', resolve));
    const res = await sent(
      deleteMarketMaker({ client: sdkClient(s.t.svc.baseUrl, s.t.operatorToken), path: { wallet_address: m.address } }),
    );
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
    await register(account, 'Example MM');
    await userWithFunds(account.address, 1_000_000_000n);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'examples/market-maker-client.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', MM_PRIVATE_KEY: key, WS_URL: wsUrl(s.b), MM_MAX_FILL_MICROS: '1500000', MM_ASSETS: 'ETH' },
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

  it('a quote sent after the quote window is answered rfq_closed, and rfq_quote_acks_total counts it where it was answered', async () => {
    const m = await maker();
    const c = await connect(s.b, m);
    await c.client.subscribe({ assets: ['SOL'], durations: [300] });
    const acks = async (result: string) => {
      const res = await fetch(`${s.b.baseUrl}/metrics`, { headers: { authorization: `Bearer ${s.t.operatorToken}` } });
      return Number(new RegExp(`^rfq_quote_acks_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(await res.text())?.[1] ?? 0);
    };
    const before = await acks('rfq_closed');
    const posted = postOrder(s.t.svc.baseUrl, s.taker, s.signingDomain, order([['SOL/300', 'up']], { deadline_ms: Date.now() + 30_000 }), {
      fillMode: 'best',
    });
    const rfq = await c.waitFor(
      'rfq',
      (f) =>
        f.taker_address === s.taker.wallet.address.toLowerCase() && f.fill_mode === 'best' && f.legs[0]?.market_id === s.windows['SOL/300'],
    );
    // B heard the RFQ's quote deadline on the bus: a quote it handles after that gets rfq_closed (without its statement,
    // src/domain/rfq/late-quotes.db.test.ts; or from the statement once the RFQ has closed: the same answer).
    await new Promise((r) => setTimeout(r, Math.max(0, rfq.quote_deadline_ms - Date.now()) + 20));
    expect(await c.client.quote(quoteFor(rfq))).toMatchObject({ rfq_id: rfq.rfq_id, accepted: false, error: 'rfq_closed' });
    expect((await posted).body).toMatchObject({ rfq_id: rfq.rfq_id, status: 'expired' });
    expect((await acks('rfq_closed')) - before).toBe(1);
  });

  it('the sweeper closes (and fills) an RFQ whose API process was SIGKILLed inside its quote window', async () => {
    const m = await maker();
    const c = await connect(s.b, m);
    await c.client.subscribe({ assets: ['BTC'], durations: [900] });
    // A third API process takes the best-mode POST; it holds the answer for the quote window, and its timer
    // would close the RFQ at the deadline. It dies first: only a sweep (on A or B) can close the RFQ.
    const owner = await startServiceProcess({ env: s.t.env, args: ['--role=api'] });
    extraProcesses.push(owner);
    const o = order([['BTC/900', 'up']], { deadline_ms: Date.now() + 30_000 });
    const posted = postOrder(owner.baseUrl, s.taker, s.signingDomain, o, { fillMode: 'best' }).catch((err: Error) => err);
    const rfq = await c.waitFor(
      'rfq',
      (f) =>
        f.taker_address === s.taker.wallet.address.toLowerCase() && f.fill_mode === 'best' && f.legs[0]?.market_id === s.windows['BTC/900'],
    );
    const rfqId = rfq.rfq_id;
    const ack = await c.client.quote(quoteFor(rfq, { odds_bps: 19_000 }));
    expect(ack).toMatchObject({ accepted: true });
    expect(await owner.stop('SIGKILL')).toBeNull();
    expect(await posted).toBeInstanceOf(Error); // the taker's request died with the process (a retry with its key returns the RFQ)

    expect(rfq).toMatchObject({ fill_mode: 'best', order_type: 'FOK', stake_micros: String(o.stake_micros) });
    const result = await c.waitFor('quote_result', (f) => f.quote_id === ack.quote_id);
    expect(result).toMatchObject({
      status: 'filled',
      reason: null,
      fill_stake_micros: '2000000',
      odds_bps: 19_000,
      liability_micros: '1800000',
    });
    expect(result.position_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await c.waitFor('rfq_closed', (f) => f.rfq_id === rfqId)).toMatchObject({ status: 'filled' });
    const row = await db(em()).selectFrom('rfqs').select(['status', 'position_id']).where('id', '=', rfqId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'filled', position_id: result.position_id });
    // Closed by a sweep (the owner's timer died with it), on whichever surviving process ran the job.
    const swept = (l: Record<string, unknown>) => l.msg === 'overdue RFQs swept' && Array.isArray(l.rfq_ids) && l.rfq_ids.includes(rfqId);
    await Promise.any([s.t.svc.waitForLog(swept, 15_000), s.b.waitForLog(swept, 15_000)]);
  });
});
