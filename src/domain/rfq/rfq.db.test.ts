// Medium tier: the RFQ rules on real PostgreSQL: create (checks, reservation, nonce, limits), quotes
// (replace, self-trade, collateral, client ids), close (best fill across makers, FOK/IOC, lazy maker
// signature checks), accept, cancel, sweeper selection, races, and the ledger's reserved invariant.
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { ensureWindows } from '../markets/markets.js';
import {
  acceptQuote,
  cancelQuote,
  cancelRfq,
  closeRfq,
  createRfq,
  dueRfqIds,
  getMakerRfq,
  getOwnRfq,
  listOwnRfqs,
  loadRfq,
  submitQuote,
} from './api.js';
import type { RfqWithQuotes } from './records.js';
import type { RfqDeps } from './deps.js';
import { RFQ_EIP712_SALT_DEV } from '../../constants.js';
import { orderTypedData, quoteTypedData, rfqDomain, type RfqOrderJson } from './typed-data.js';
import { fundedUser } from '../../testing/funding.js';

const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;
const [TAKER, MM1, MM2, MM3] = KEYS.map((k) => privateKeyToAccount(k));

let t: MigratedOrm;
let clock = 0;
const T0 = Math.floor(Date.now() / 300_000) * 300_000; // a 5-minute window starting now-ish
const deps: RfqDeps = {
  settings: {
    minStakeMicros: 500_000n,
    maxStakeMicros: 10_000_000_000n,
    maxPayoutMicros: 50_000_000_000n,
    maxLegs: 9,
    quoteWindowMs: 500,
    maxDeadlineMs: 60_000,
    maxOpenPerUser: 3,
    eip712Name: 'contest-rfq-service',
    eip712Salt: RFQ_EIP712_SALT_DEV,
    minFillMicros: 10_000n,
    signingChainId: 8453,
    bettingCloseBufferMs: 10_000,
  },
  now: () => clock,
};
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);
const em = () => t.orm.em.fork();
let users: Record<string, string>;
let markets: number[];
let nonce = 0;

const userWith = (address: string, funds: bigint) => fundedUser(em, address, funds);

beforeAll(async () => {
  t = await migratedOrm('rfq');
  users = {
    taker: await userWith(TAKER!.address, 100_000_000n),
    mm1: await userWith(MM1!.address, 100_000_000n),
    mm2: await userWith(MM2!.address, 100_000_000n),
    mm3: await userWith(MM3!.address, 1_000n), // too little collateral for anything
  };
  await ensureWindows(em(), [
    { asset: 'BTC', durationSecs: 300, startAtMs: T0 + 300_000 },
    { asset: 'ETH', durationSecs: 300, startAtMs: T0 + 300_000 },
  ]);
  const rows = await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').orderBy('market_id').execute();
  markets = rows.map((r) => Number(r.market_id));
});
afterAll(async () => t?.close());
beforeEach(async () => {
  clock = T0 + 300_000 + 1000; // inside the window, betting open for ~289 s
  // Every test starts with no open RFQs of the taker.
  const open = await db(em()).selectFrom('rfqs').select('id').where('status', '=', 'open').execute();
  for (const r of open) await cancelRfq(em(), deps, users.taker!, r.id);
});

function order(over: Partial<RfqOrderJson> = {}): RfqOrderJson {
  return {
    taker: TAKER!.address,
    legs: [{ market_id: markets[0]!, direction: 'up' }],
    stake_micros: 10_000_000,
    min_odds_bps: 15_000,
    order_type: 'IOC',
    nonce: ++nonce,
    deadline_ms: clock + 30_000,
    ...over,
  };
}
const sign = (o: RfqOrderJson) => TAKER!.signTypedData(orderTypedData(domain, o));

async function create(o: RfqOrderJson, fillMode: 'best' | 'manual' = 'best', key = randomUUID()) {
  const signature = await sign(o);
  return em().transactional((tx) =>
    createRfq(tx, deps, { userId: users.taker!, sessionAddress: TAKER!.address, order: o, signature, fillMode, idempotencyKey: key }),
  );
}

async function quote(mm: typeof MM1, rfqId: string, oddsBps: number, maxFill: number, extra: { client_quote_id?: string; badSig?: boolean } = {}) {
  const q = { rfq_id: rfqId, maker: mm!.address, odds_bps: oddsBps, max_fill_micros: maxFill, valid_until_ms: clock + 20_000 };
  const signer = extra.badSig ? MM3! : mm!;
  const signature = await signer.signTypedData(quoteTypedData(domain, q));
  return submitQuote(em(), deps, mm!.address, { ...q, client_quote_id: extra.client_quote_id, signature });
}

const balances = async (u: string) => userBalances(em(), users[u]!);
/** What a write returns is built from what it wrote, not read back: it must equal a fresh read. */
const expectFresh = async (w: RfqWithQuotes) => expect(w).toEqual(await loadRfq(em(), w.rfq.id));

describe('createRfq', () => {
  it('reserves the stake with the RFQ, and a retry of the same request returns the same RFQ', async () => {
    const before = await balances('taker');
    const o = order();
    const key = randomUUID();
    const signature = await sign(o);
    const input = {
      userId: users.taker!,
      sessionAddress: TAKER!.address.toLowerCase(),
      order: o,
      signature,
      fillMode: 'best' as const,
      idempotencyKey: key,
    };
    const r = await em().transactional((tx) => createRfq(tx, deps, input));
    expect(r.rfq.rfq).toMatchObject({
      status: 'open',
      stakeMicros: 10_000_000n,
      quoteDeadlineMs: clock + 500,
      takerAddress: TAKER!.address.toLowerCase(),
    });
    expect(r.events).toEqual([
      expect.objectContaining({ topic: 'rfq.open', frame: expect.objectContaining({ type: 'rfq', rfq_id: r.rfq.rfq.id, stake_micros: '10000000' }) }),
    ]);
    expect(JSON.stringify(r.events[0])).not.toContain('min_odds');
    await expectFresh(r.rfq);
    const after = await balances('taker');
    expect(before.available - after.available).toBe(10_000_000n);
    expect(after.reserved - before.reserved).toBe(10_000_000n);

    const again = await em().transactional((tx) => createRfq(tx, deps, input));
    expect(again.rfq.rfq.id).toBe(r.rfq.rfq.id);
    expect(again.events).toEqual([]);
    await expect(em().transactional((tx) => createRfq(tx, deps, { ...input, idempotencyKey: randomUUID() }))).rejects.toMatchObject({
      code: 'NONCE_REUSED',
      status: 409,
    });
    expect((await balances('taker')).reserved).toBe(after.reserved);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('refuses in the order of 3.12', async () => {
    await expect(create(order({ stake_micros: 100 }))).rejects.toMatchObject({ code: 'INVALID_ORDER', status: 422 });
    await expect(create(order({ deadline_ms: clock + 200 }))).rejects.toMatchObject({ code: 'ORDER_EXPIRED' });
    const o = order();
    await expect(
      em().transactional(async (tx) =>
        createRfq(tx, deps, {
          userId: users.taker!,
          sessionAddress: MM1!.address,
          order: o,
          signature: await sign(o),
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      ),
    ).rejects.toMatchObject({ code: 'TAKER_MISMATCH', status: 422 });
    await expect(create(order({ legs: [{ market_id: 999_999_999, direction: 'up' }] }))).rejects.toMatchObject({
      code: 'MARKET_NOT_FOUND',
      status: 404,
    });
    const tampered = order();
    const sig = await sign(tampered);
    await expect(
      em().transactional((tx) =>
        createRfq(tx, deps, {
          userId: users.taker!,
          sessionAddress: TAKER!.address,
          order: { ...tampered, stake_micros: tampered.stake_micros + 1 },
          signature: sig,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      ),
    ).rejects.toMatchObject({ code: 'INVALID_SIGNATURE' });
    await expect(create(order({ stake_micros: 1_000_000_000 }))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 422 });
    const saved = clock;
    clock = T0 + 600_000 - 10_000; // the window's betting close
    await expect(create(order({ deadline_ms: clock + 30_000 }))).rejects.toMatchObject({ code: 'BETTING_CLOSED', status: 409 });
    clock = saved;
  });

  it('allows RFQ_MAX_OPEN_PER_USER open RFQs, even when created concurrently', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => create(order(), 'manual')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(3);
    expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(['OPEN_RFQ_LIMIT', 'OPEN_RFQ_LIMIT', 'OPEN_RFQ_LIMIT']);
    expect((refused[0]!.reason as { details: unknown }).details).toEqual({ open_rfqs: 3, limit: 3 });
  });

  it('remembers the windows it has seen (the API`s rfqDepsOf), never an unknown one', async () => {
    const windows = new Map();
    const cached: RfqDeps = { ...deps, windows };
    const run = async (o: RfqOrderJson) => {
      const signature = await sign(o);
      return em().transactional((tx) =>
        createRfq(tx, cached, {
          userId: users.taker!,
          sessionAddress: TAKER!.address,
          order: o,
          signature,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
    };
    const first = await run(order());
    expect([...windows.keys()]).toEqual([markets[0]]);
    const second = await run(order()); // from the map: the same legs as a lookup gives
    expect(second.rfq.rfq.legs).toEqual(first.rfq.rfq.legs);
    await expect(run(order({ legs: [{ market_id: 999_999_998, direction: 'up' }] }))).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
    expect([...windows.keys()]).toEqual([markets[0]]);
    for (const r of [first, second]) await cancelRfq(em(), deps, users.taker!, r.rfq.rfq.id);
  });
});

describe('quotes and close', () => {
  it('fills best first across makers (IOC) and keeps the ledger exact', async () => {
    const r = await create(order({ min_odds_bps: 15_000 }));
    const id = r.rfq.rfq.id;
    const q1 = await quote(MM1, id, 21_000, 4_000_000);
    const q2 = await quote(MM2, id, 20_000, 100_000_000, { client_quote_id: randomUUID() });
    const low = await quote(MM2, id, 12_000, 1_000_000); // replaces MM2's first quote
    expect([q1.ack.accepted, q2.ack.accepted, low.ack.accepted]).toEqual([true, true, true]);
    // Best mode: no rfq.quote (its long-polls wake on rfq.closed); the replaced quote's quote_result.
    expect(low.events.map((e) => e.topic)).toEqual(['mm.event']);
    const q2b = await quote(MM2, id, 20_000, 100_000_000);
    expect((await quote(MM3, id, 30_000, 1_000_000)).ack).toMatchObject({ accepted: false, error: 'insufficient_collateral' });

    const early = await closeRfq(em(), deps, id);
    expect(early.changed).toBe(false);
    await expectFresh(early.rfq);
    const mm1Before = await balances('mm1');
    const takerBefore = await balances('taker');
    clock += 500;
    const [a, b] = await Promise.all([closeRfq(em(), deps, id), closeRfq(em(), deps, id)]);
    expect([a.changed, b.changed].sort()).toEqual([false, true]);
    const closed = a.changed ? a : b;
    await expectFresh(closed.rfq);
    await expectFresh((a.changed ? b : a).rfq);
    // 4 at 2.1 (payout 8.4, liability 4.4) + 6 at 2.0 (payout 12, liability 6): 20.4 for 10 -> 20400 bps
    expect(closed.rfq.rfq).toMatchObject({ status: 'filled', filledStakeMicros: 10_000_000n, payoutMicros: 20_400_000n, oddsBps: 20_400 });
    // The makers' quote_result frames travel inside rfq.closed, with the wallet each goes to.
    const results = closed.events.flatMap((e) => (e.topic === 'rfq.closed' ? e.results.map((r) => r.frame) : []));
    expect(closed.events.filter((e) => e.topic === 'mm.event')).toEqual([]);
    expect(results.find((f) => f.quote_id === q1.ack.quote_id)).toMatchObject({
      status: 'filled',
      fill_stake_micros: '4000000',
      liability_micros: '4400000',
    });
    expect(results.find((f) => f.quote_id === q2b.ack.quote_id)).toMatchObject({
      status: 'filled',
      fill_stake_micros: '6000000',
      liability_micros: '6000000',
    });
    expect(closed.events[0]).toMatchObject({
      topic: 'rfq.closed',
      frame: { type: 'rfq_closed', rfq_id: id, status: 'filled' },
      route: { assets: ['BTC'], durations: [300], legs: [{ asset: 'BTC', duration_secs: 300 }] },
    });
    expect(mm1Before.available - (await balances('mm1')).available).toBe(4_400_000n);
    expect((await balances('taker')).reserved).toBe(takerBefore.reserved); // the stake stays reserved in the position
    const pos = await db(em()).selectFrom('positions').selectAll().where('rfq_id', '=', id).executeTakeFirstOrThrow();
    expect(pos).toMatchObject({ stake: '10000000', payout: '20400000', status: 'open' });
    expect(await checkLedger(em())).toEqual([]);
    const mine = await getMakerRfq(em(), MM1!.address, id);
    expect(mine.quotes.map((q) => q.id)).toEqual([q1.ack.quote_id]);
    expect((await quote(MM1, id, 21_000, 1_000_000)).ack.error).toBe('rfq_closed');
  });

  it('refuses a quote whose signature does not recover to its maker at quote_ack, and FOK expires when the rest cannot fill it', async () => {
    const r = await create(order({ order_type: 'FOK' }));
    const id = r.rfq.rfq.id;
    expect((await quote(MM1, id, 30_000, 10_000_000, { badSig: true })).ack).toMatchObject({ accepted: false, error: 'invalid_signature' });
    await quote(MM2, id, 20_000, 5_000_000);
    const before = await balances('taker');
    clock += 600;
    const closed = await closeRfq(em(), deps, id);
    expect(closed.rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'insufficient_liquidity' });
    await expectFresh(closed.rfq);
    expect(closed.rfq.quotes.map((q) => q.makerAddress)).toEqual([MM2!.address.toLowerCase()]);
    const after = await balances('taker');
    expect(after.available - before.available).toBe(10_000_000n);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('refuses self-trades and duplicate client quote ids; cancels a quote once', async () => {
    const r = await create(order(), 'manual');
    const id = r.rfq.rfq.id;
    const self = await quote(TAKER, id, 20_000, 1_000_000);
    expect(self.ack.error).toBe('self_trade');
    const cq = randomUUID();
    const first = await quote(MM1, id, 20_000, 1_000_000, { client_quote_id: cq });
    expect((await quote(MM1, id, 20_000, 1_000_000, { client_quote_id: cq })).ack).toEqual(first.ack);
    expect((await quote(MM1, id, 21_000, 1_000_000, { client_quote_id: cq })).ack.error).toBe('duplicate_client_quote_id');
    expect((await cancelQuote(em(), MM1!.address, id, first.ack.quote_id!)).ack.accepted).toBe(true);
    expect((await cancelQuote(em(), MM1!.address, id, first.ack.quote_id!)).ack.error).toBe('quote_not_live');
    expect((await quote(MM1, randomUUID(), 20_000, 1_000_000)).ack.error).toBe('unknown_rfq');
  });

  it('manual: accepts one quote (others outbid), refuses a quote below min odds; cancel releases and repeats', async () => {
    const r = await create(order({ min_odds_bps: 18_000 }), 'manual');
    const id = r.rfq.rfq.id;
    const a = await quote(MM1, id, 19_000, 10_000_000);
    const b = await quote(MM2, id, 17_000, 10_000_000);
    await expect(em().transactional((tx) => acceptQuote(tx, deps, users.taker!, id, b.ack.quote_id!))).rejects.toMatchObject({
      code: 'ODDS_BELOW_MINIMUM',
    });
    await expect(em().transactional((tx) => acceptQuote(tx, deps, users.mm1!, id, a.ack.quote_id!))).rejects.toMatchObject({ code: 'RFQ_NOT_FOUND' });
    clock += 5_000; // manual: no quote window
    const filled = await em().transactional((tx) => acceptQuote(tx, deps, users.taker!, id, a.ack.quote_id!));
    expect(filled.rfq.rfq).toMatchObject({ status: 'filled', oddsBps: 19_000 });
    await expectFresh(filled.rfq);
    expect(filled.rfq.quotes.find((q) => q.id === b.ack.quote_id)).toMatchObject({ status: 'not_filled', reason: 'outbid' });
    await expect(em().transactional((tx) => acceptQuote(tx, deps, users.taker!, id, a.ack.quote_id!))).rejects.toMatchObject({
      code: 'RFQ_NOT_OPEN',
    });
    await expect(cancelRfq(em(), deps, users.taker!, id)).rejects.toMatchObject({ code: 'RFQ_NOT_OPEN' });

    const c = await create(order(), 'manual');
    const before = await balances('taker');
    const cancelled = await cancelRfq(em(), deps, users.taker!, c.rfq.rfq.id);
    expect(cancelled.rfq.rfq).toMatchObject({ status: 'cancelled', closeReason: 'cancelled' });
    await expectFresh(cancelled.rfq);
    expect((await balances('taker')).available - before.available).toBe(10_000_000n);
    expect((await cancelRfq(em(), deps, users.taker!, c.rfq.rfq.id)).events).toEqual([]);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('expires a manual RFQ at its deadline via the due list, and lists a taker`s RFQs page by page', async () => {
    const r = await create(order({ deadline_ms: clock + 2_000 }), 'manual');
    expect(await dueRfqIds(em(), clock, 250, 100)).not.toContain(r.rfq.rfq.id);
    clock += 2_300;
    expect(await dueRfqIds(em(), clock, 250, 100)).toContain(r.rfq.rfq.id);
    const closed = await closeRfq(em(), deps, r.rfq.rfq.id);
    expect(closed.rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'deadline' });

    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listOwnRfqs(em(), users.taker!, { limit: 2, cursor });
      for (const x of page.rfqs) seen.add(x.rfq.id);
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    const total = await db(em())
      .selectFrom('rfqs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('taker_user_id', '=', users.taker!)
      .executeTakeFirstOrThrow();
    expect(seen.size).toBe(Number(total.n));
    expect(pages).toBeGreaterThan(1);
    await expect(listOwnRfqs(em(), users.taker!, { limit: 2, cursor: 'eyJrIjoicmZxIn0.AAAAAAAAAAAAAAAAAAAAAA' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    await expect(getOwnRfq(em(), users.mm1!, r.rfq.rfq.id)).rejects.toMatchObject({ code: 'RFQ_NOT_FOUND' });
  });

  it('a maker with collateral for 3 liabilities is filled at most 3 times, whatever closes at once', async () => {
    const thin = privateKeyToAccount('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a');
    const thinUser = await userWith(thin.address, 3_000_000n); // 3 liabilities of 1 USDC (1 at 2.0)
    const roomy: RfqDeps = { ...deps, settings: { ...deps.settings, maxOpenPerUser: 10 } };
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const o = order({ stake_micros: 1_000_000, order_type: 'FOK' });
      const r = await em().transactional(async (tx) =>
        createRfq(tx, roomy, {
          userId: users.taker!,
          sessionAddress: TAKER!.address,
          order: o,
          signature: await sign(o),
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
      ids.push(r.rfq.rfq.id);
      expect((await quote(thin, r.rfq.rfq.id, 20_000, 1_000_000)).ack.accepted).toBe(true); // each fits the unlocked read
    }
    clock += 600;
    const closed = await Promise.all(ids.map((id) => closeRfq(em(), roomy, id)));
    const statuses = closed.map((c) => c.rfq.rfq.status);
    expect(statuses.filter((s) => s === 'filled')).toHaveLength(3);
    expect(closed.filter((c) => c.rfq.rfq.status === 'expired').map((c) => c.rfq.quotes[0]!.reason)).toEqual([
      'insufficient_collateral',
      'insufficient_collateral',
      'insufficient_collateral',
    ]);
    expect(await userBalances(em(), thinUser)).toEqual({ available: 0n, reserved: 3_000_000n, appToken: 0n });
    expect(await checkLedger(em())).toEqual([]);
  });
});
