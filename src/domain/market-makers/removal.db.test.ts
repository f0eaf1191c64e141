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
import { orderTypedData, quoteTypedData, rfqDomain } from '../rfq/typed-data.js';
import { registerMarketMaker, removeMarketMaker } from './market-makers.js';

const DAY = 86_400_000;
const deps = rfqTestDeps(10_000, 300);
// The race's RFQ: a window long enough that eight signed quotes and eight removals all land inside it even on a
// loaded machine (with 300 ms, a slow box refused late quotes `rfq_closed`, which this test is not about).
const raceDeps = rfqTestDeps(10_000, 3_000);
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

async function openRfq(fillMode: 'best' | 'manual' = 'best', d = deps): Promise<string> {
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
  const r = await em().transactional((tx) =>
    createRfq(tx, d, { userId: takerId, sessionAddress: taker.address, order, signature, fillMode, idempotencyKey: randomUUID() }),
  );
  return r.rfq.rfq.id;
}

async function quote(maker: PrivateKeyAccount, rfqId: string, d = deps) {
  const q = { rfq_id: rfqId, maker: maker.address, odds_bps: 20_000, max_fill_micros: 1_000_000, valid_until_ms: Date.now() + 15_000 };
  return (await submitQuote(em(), d, maker.address, { ...q, signature: await maker.signTypedData(quoteTypedData(domain, q)) })).ack;
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

const afterWindow = (d = deps) => new Promise((r) => setTimeout(r, d.settings.quoteWindowMs + 50));

describe('removal and quotes', () => {
  it('cancels every live quote of the maker in its transaction; a quote after it is refused unknown_market_maker', async () => {
    const maker = await newMaker();
    const rfqs = [await openRfq('manual'), await openRfq('manual')];
    for (const id of rfqs) expect(await quote(maker, id)).toMatchObject({ accepted: true });
    expect(await liveQuotesOf(maker)).toBe(2);
    const removed = await removeMarketMaker(em(), maker.address);
    expect(removed.withdrawnQuotes.map((q) => q.rfqId).sort()).toEqual([...rfqs].sort());
    expect(await liveQuotesOf(maker)).toBe(0);
    expect(await quote(maker, rfqs[0]!)).toMatchObject({ accepted: false, error: 'unknown_market_maker', quote_id: null });
  });

  it('the fill skips a live quote whose maker is removed (the backstop: the quote was left live on purpose)', async () => {
    const gone = await newMaker();
    const stays = await newMaker();
    const id = await openRfq();
    expect(await quote(gone, id)).toMatchObject({ accepted: true });
    await db(em()).updateTable('market_makers').set({ removed_at: new Date().toISOString() }).where('wallet_address', '=', gone.address).execute();
    await afterWindow();
    expect((await closeRfq(em(), deps, id)).rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'no_quotes' });

    const id2 = await openRfq();
    expect(await quote(stays, id2)).toMatchObject({ accepted: true });
    await afterWindow();
    const filled = await closeRfq(em(), deps, id2);
    expect(filled.rfq.rfq.status).toBe('filled');
    expect(await checkLedger(em())).toEqual([]);
  });

  it('quotes racing removals: afterwards no removed maker has a live quote and nothing of theirs fills', async () => {
    const makers = await Promise.all(Array.from({ length: 8 }, () => newMaker()));
    const id = await openRfq('best', raceDeps);
    const acks = await Promise.all(makers.flatMap((m) => [quote(m, id, raceDeps), removeMarketMaker(em(), m.address).then(() => null)]));
    const quoted = acks.filter((a) => a !== null);
    expect(quoted).toHaveLength(8);
    for (const a of quoted) expect(a!.accepted ? null : a!.error).toBeOneOf([null, 'unknown_market_maker']);
    for (const m of makers) expect(await liveQuotesOf(m)).toBe(0);
    await afterWindow(raceDeps);
    expect((await closeRfq(em(), raceDeps, id)).rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'no_quotes' });
    expect(await checkLedger(em())).toEqual([]);
  });
});
