// One best-mode RFQ in-process, step by step (create in a transaction, one maker's quote, the close at the end of
// the quote window), on a migrated database of its own with a pinned clock: the set-up and the steps shared by
// scripts/bench/rfq-close-profile.ts and scripts/bench/user-channel-statements.ts. Signing is kept out of the
// steps (signOrder, signQuote), so a caller times the service's work only.
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../src/config/load.js';
import type { Em } from '../../src/db/orm.js';
import { db } from '../../src/db/schema.js';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { ensureWindows } from '../../src/domain/markets/markets.js';
import { closeRfq, createRfq, submitQuote, type QuoteInput } from '../../src/domain/rfq/api.js';
import { rfqDepsOf, type RfqDeps } from '../../src/domain/rfq/deps.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { fundedUser } from '../../src/testing/funding.js';
import { buildOrder } from '../../src/testing/rfq-trade.js';
import { migratedOrm, type MigratedOrm } from '../../src/testing/orm.js';

const TAKER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MM = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

export interface SignedOrder {
  order: RfqOrderJson;
  signature: string;
}

export interface InProcessFills {
  t: MigratedOrm;
  em: () => Em;
  /** The taker's next order (a new nonce), signed. */
  signOrder(): Promise<SignedOrder>;
  /** createRfq in a transaction of its own; the RFQ's id. */
  create(s: SignedOrder): Promise<string>;
  /** The maker's quote on `rfqId`, signed. */
  signQuote(rfqId: string): Promise<QuoteInput>;
  quote(q: QuoteInput): Promise<unknown>;
  /** closeRfq past the quote deadline; throws unless the RFQ filled. */
  close(rfqId: string): Promise<void>;
  stop(): Promise<void>;
}

/** A migrated database `label`, a funded taker and maker, one 5-minute BTC window and the service's RFQ settings. */
export async function inProcessFills(label: string): Promise<InProcessFills> {
  const t = await migratedOrm(label);
  let clock = Date.now();
  const T0 = Math.floor(clock / 300_000) * 300_000 + 300_000;
  clock = T0 + 1000;
  // The service's RFQ settings (defaults), with room for every RFQ the run leaves open, and a pinned clock.
  const config = loadConfig({ RFQ_MAX_OPEN_PER_USER: '10000' });
  const deps: RfqDeps = { ...rfqDepsOf(config), now: () => clock };
  const domain = rfqDomainOf(config.rfq);
  const em = () => t.orm.em.fork();
  const taker = await fundedUser(em, TAKER.address.toLowerCase(), 10n ** 15n);
  await fundedUser(em, MM.address.toLowerCase(), 10n ** 15n);
  await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 300, startAtMs: T0 + 300_000 }]);
  const market = Number(
    (await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow()).market_id,
  );
  let nonce = 0;
  return {
    t,
    em,
    async signOrder() {
      const order = buildOrder(TAKER.address, [{ market_id: market, direction: 'up' }], { nonce: ++nonce, deadline_ms: clock + 30_000 });
      return { order, signature: await TAKER.signTypedData(orderTypedData(domain, order)) };
    },
    async create({ order, signature }) {
      const r = await inTransaction(em(), (tx) =>
        createRfq(tx, deps, {
          userId: taker,
          sessionAddress: TAKER.address,
          order,
          signature,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
      return r.rfq.rfq.id;
    },
    async signQuote(rfqId) {
      const q = { rfq_id: rfqId, maker: MM.address, odds_bps: 19_000, max_fill_micros: 1_000_000_000, valid_until_ms: clock + 20_000 };
      return { ...q, signature: await MM.signTypedData(quoteTypedData(domain, q)) };
    },
    quote: (q) => submitQuote(em(), deps, MM.address, q),
    async close(rfqId) {
      clock += 600;
      try {
        const c = await closeRfq(em(), deps, rfqId);
        if (c.rfq.rfq.status !== 'filled') throw new Error(`not filled: ${c.rfq.rfq.status}`);
      } finally {
        clock -= 600;
      }
    },
    stop: () => t.close(),
  };
}
