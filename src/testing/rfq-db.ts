// The shared setup of the RFQ rules' database tests (src/domain/rfq/rfq-create.db.test.ts, rfq-close.db.test.ts,
// late-quotes.db.test.ts): one migrated
// database per test file, a taker and three makers funded, two RFQ windows, a pinned clock (`fx.clock`), and
// helpers that create, quote and read as the API does.
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { db } from '../db/schema.js';
import { migratedOrm, type MigratedOrm } from './orm.js';
import { userBalances } from '../domain/ledger/ledger.js';
import { ensureWindows } from '../domain/markets/markets.js';
import { cancelRfq, createRfq, loadRfq, submitQuote, type QuoteInput } from '../domain/rfq/api.js';
import type { RfqWithQuotes } from '../domain/rfq/records.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import { RFQ_EIP712_SALT_DEV } from '../constants.js';
import { orderTypedData, quoteTypedData, rfqDomain, type RfqOrderJson } from '../domain/rfq/typed-data.js';
import { fundedUser } from './funding.js';
import { rfqTestDeps } from './position-fill.js';
import { inTransaction } from '../db/unit-of-work.js';

const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;
export const [TAKER, MM1, MM2, MM3] = KEYS.map((k) => privateKeyToAccount(k));

let t: MigratedOrm;
/** The test's state: the pinned clock (tests move it), the users' ids by name, the RFQ windows' market ids. */
export const fx = { clock: 0, users: {} as Record<string, string>, markets: [] as number[] };
export const T0 = Math.floor(Date.now() / 300_000) * 300_000; // a 5-minute window starting now-ish
export const deps: RfqDeps = { ...rfqTestDeps(10_000, 500, { maxOpenPerUser: 3 }), now: () => fx.clock };
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);
export const em = () => t.orm.em.fork();
let nonce = 0;

export const userWith = (address: string, funds: bigint) => fundedUser(em, address, funds);

/** Registers the file's hooks: the database and its users once, no open RFQ of the taker before each test. */
export function useRfqDb(): void {
  beforeAll(async () => {
    t = await migratedOrm('rfq');
    fx.users = {
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
    fx.markets = rows.map((r) => Number(r.market_id));
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    fx.clock = T0 + 300_000 + 1000; // inside the window, betting open for ~289 s
    // Every test starts with no open RFQs of the taker.
    const open = await db(em()).selectFrom('rfqs').select('id').where('status', '=', 'open').execute();
    for (const r of open) await cancelRfq(em(), deps, fx.users.taker!, r.id);
  });
}

export function order(over: Partial<RfqOrderJson> = {}): RfqOrderJson {
  return {
    taker: TAKER!.address,
    legs: [{ market_id: fx.markets[0]!, direction: 'up' }],
    stake_micros: 10_000_000,
    min_odds_bps: 15_000,
    order_type: 'IOC',
    nonce: ++nonce,
    deadline_ms: fx.clock + 30_000,
    ...over,
  };
}
export const sign = (o: RfqOrderJson) => TAKER!.signTypedData(orderTypedData(domain, o));

export async function create(o: RfqOrderJson, fillMode: 'best' | 'manual' = 'best', key = randomUUID()) {
  const signature = await sign(o);
  return inTransaction(em(), (tx) =>
    createRfq(tx, deps, { userId: fx.users.taker!, sessionAddress: TAKER!.address, order: o, signature, fillMode, idempotencyKey: key }),
  );
}

/** A maker's quote frame, signed (by another maker with `badSig`), valid for 20 s from the pinned clock. */
export async function signedQuote(
  mm: typeof MM1,
  rfqId: string,
  oddsBps: number,
  maxFill: number,
  extra: { client_quote_id?: string; badSig?: boolean } = {},
): Promise<QuoteInput> {
  const q = { rfq_id: rfqId, maker: mm!.address, odds_bps: oddsBps, max_fill_micros: maxFill, valid_until_ms: fx.clock + 20_000 };
  const signer = extra.badSig ? MM3! : mm!;
  const signature = await signer.signTypedData(quoteTypedData(domain, q));
  return { ...q, client_quote_id: extra.client_quote_id, signature };
}

export async function quote(
  mm: typeof MM1,
  rfqId: string,
  oddsBps: number,
  maxFill: number,
  extra: { client_quote_id?: string; badSig?: boolean } = {},
) {
  return submitQuote(em(), deps, mm!.address, await signedQuote(mm, rfqId, oddsBps, maxFill, extra));
}

export const balances = async (u: string) => userBalances(em(), fx.users[u]!);
/** What a write returns is built from what it wrote, not read back: it must equal a fresh read. */
export const expectFresh = async (w: RfqWithQuotes) => expect(w).toEqual(await loadRfq(em(), w.rfq.id));
