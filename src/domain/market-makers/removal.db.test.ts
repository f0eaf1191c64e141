// Removal takes effect, on real PostgreSQL (docs/market-makers.md "Removal"): the removal cancels the
// maker's live quotes in its transaction, a quote racing a removal is either withdrawn by it or refused
// (`unknown_market_maker`), and the fill skips a live quote whose maker was removed (the backstop).
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { fundedUser } from '../../testing/funding.js';
import { rfqTestDeps } from '../../testing/position-fill.js';
import { checkLedger } from '../ledger/ledger.js';
import { ensureWindows } from '../markets/markets.js';
import { closeRfq, createRfq, submitQuote } from '../rfq/api.js';
import type { RfqDeps } from '../rfq/deps.js';
import { orderTypedData, quoteTypedData, rfqDomain } from '../rfq/typed-data.js';
import { registerMarketMaker, removeMarketMaker } from './market-makers.js';
import { inTransaction } from '../../db/unit-of-work.js';

const DAY = 86_400_000;
const deps = rfqTestDeps(10_000, 300);
// The RFQ rules' clock, pinned per RFQ (RfqDeps.now): its quotes arrive inside its 300 ms quote window however
// long a loaded machine takes to sign and send them (they were refused rfq_closed in a full CI run), and it
// closes after the window without a sleep. What races here is the database: quotes against removals.
const at = (nowMs: number): RfqDeps => ({ ...deps, now: () => nowMs });
const afterWindow = (openedAtMs: number) => at(openedAtMs + deps.settings.quoteWindowMs + 1);
const domain = rfqDomain(deps.settings.eip712Name, deps.settings.signingChainId, deps.settings.eip712Salt);
const taker = privateKeyToAccount(generatePrivateKey());
let t: MigratedOrm;
let takerId: string;
let market: number;
let nonce = 0;
const em = () => t.orm.em.fork();

beforeAll(async () => {
  t = await migratedOrm('mmremoval');
  takerId = await fundedUser(em, taker.address, 10_000_000_000n);
  const startAtMs = Math.floor(Date.now() / DAY) * DAY;
  await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 86_400, startAtMs }]);
  const row = await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow();
  market = Number(row.market_id);
});
afterAll(async () => t?.close());

async function newMaker(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await registerMarketMaker(em(), account.address, 'removal test');
  await fundedUser(em, account.address, 1_000_000_000n);
  return account;
}

async function openRfq(nowMs: number, fillMode: 'best' | 'manual' = 'best'): Promise<string> {
  const order = {
    taker: taker.address,
    legs: [{ market_id: market, direction: 'up' as const }],
    stake_micros: 1_000_000,
    min_odds_bps: 10_001,
    order_type: 'FOK' as const,
    nonce: ++nonce,
    deadline_ms: Date.now() + 20_000,
  };
  const signature = await taker.signTypedData(orderTypedData(domain, order));
  const r = await inTransaction(em(), (tx) =>
    createRfq(tx, at(nowMs), { userId: takerId, sessionAddress: taker.address, order, signature, fillMode, idempotencyKey: randomUUID() }),
  );
  return r.rfq.rfq.id;
}

async function quote(maker: PrivateKeyAccount, rfqId: string, nowMs: number) {
  const q = { rfq_id: rfqId, maker: maker.address, odds_bps: 20_000, max_fill_micros: 1_000_000, valid_until_ms: Date.now() + 15_000 };
  return (await submitQuote(em(), at(nowMs), maker.address, { ...q, signature: await maker.signTypedData(quoteTypedData(domain, q)) })).ack;
}

const liveQuotesOf = async (maker: PrivateKeyAccount) =>
  (
    await db(em())
      .selectFrom('rfq_quotes')
      .select('id')
      .where('maker_address', '=', maker.address.toLowerCase())
      .where('status', '=', 'live')
      .execute()
  ).length;

describe('removal and quotes', () => {
  it('cancels every live quote of the maker in its transaction; a quote after it is refused unknown_market_maker', async () => {
    const maker = await newMaker();
    const now = Date.now();
    const rfqs = [await openRfq(now, 'manual'), await openRfq(now, 'manual')];
    for (const id of rfqs) expect(await quote(maker, id, now)).toMatchObject({ accepted: true });
    expect(await liveQuotesOf(maker)).toBe(2);
    const removed = await removeMarketMaker(em(), maker.address);
    expect(removed.withdrawnQuotes.map((q) => q.rfqId).sort()).toEqual([...rfqs].sort());
    expect(await liveQuotesOf(maker)).toBe(0);
    expect(await quote(maker, rfqs[0]!, now)).toMatchObject({ accepted: false, error: 'unknown_market_maker', quote_id: null });
  });

  it('the fill skips a live quote whose maker is removed (the backstop: the quote was left live on purpose)', async () => {
    const gone = await newMaker();
    const stays = await newMaker();
    const now = Date.now();
    const id = await openRfq(now);
    expect(await quote(gone, id, now)).toMatchObject({ accepted: true });
    await db(em())
      .updateTable('market_makers')
      .set({ removed_at: new Date().toISOString() })
      .where('wallet_address', '=', gone.address)
      .execute();
    expect((await closeRfq(em(), afterWindow(now), id)).rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'no_quotes' });

    const id2 = await openRfq(now);
    expect(await quote(stays, id2, now)).toMatchObject({ accepted: true });
    const filled = await closeRfq(em(), afterWindow(now), id2);
    expect(filled.rfq.rfq.status).toBe('filled');
    expect(await checkLedger(em())).toEqual([]);
  });

  it('quotes racing removals: afterwards no removed maker has a live quote and nothing of theirs fills', async () => {
    const makers = await Promise.all(Array.from({ length: 8 }, () => newMaker()));
    const now = Date.now();
    const id = await openRfq(now);
    const acks = await Promise.all(makers.flatMap((m) => [quote(m, id, now), removeMarketMaker(em(), m.address).then(() => null)]));
    const quoted = acks.filter((a) => a !== null);
    expect(quoted).toHaveLength(8);
    for (const a of quoted) expect(a!.accepted ? null : a!.error).toBeOneOf([null, 'unknown_market_maker']);
    for (const m of makers) expect(await liveQuotesOf(m)).toBe(0);
    expect((await closeRfq(em(), afterWindow(now), id)).rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'no_quotes' });
    expect(await checkLedger(em())).toEqual([]);
  });
});
