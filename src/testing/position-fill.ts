// A filled RFQ position made by the RFQ rules (createRfq, submitQuote, closeRfq) in the test process,
// against the service's own database, for tests of what comes after a fill (positions, settlement,
// PnL). The RFQ routes themselves are tested through HTTP and the WebSocket elsewhere.
import { randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm.js';
import { closeRfq, createRfq, submitQuote } from '../domain/rfq/api.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import { RFQ_EIP712_SALT_DEV } from '../constants.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type Direction } from '../domain/rfq/typed-data.js';
import type { TestWallet } from './identity.js';
import { inTransaction } from '../db/unit-of-work.js';

/** The service's default RFQ settings, with its betting-close buffer; `quoteWindowMs` is the time the maker has to quote. */
export function rfqTestDeps(bettingCloseBufferMs: number, quoteWindowMs = 1500, overrides: Partial<RfqDeps['settings']> = {}): RfqDeps {
  return {
    settings: {
      minStakeMicros: 500_000n,
      maxStakeMicros: 10_000_000_000n,
      maxPayoutMicros: 50_000_000_000n,
      maxLegs: 9,
      // The default leaves a loaded machine time to sign and submit the quote before the window ends.
      quoteWindowMs,
      maxDeadlineMs: 60_000,
      maxOpenPerUser: 100,
      eip712Name: 'contest-rfq-service',
      eip712Salt: RFQ_EIP712_SALT_DEV,
      minFillMicros: 10_000n,
      signingChainId: 8453,
      bettingCloseBufferMs,
      ...overrides,
    },
  };
}

export interface FillInput {
  /** The taker's user id and the wallet its session belongs to (it signs the order). */
  taker: { userId: string; wallet: TestWallet };
  /** The maker's wallet; its collateral is the balance of the user with this wallet. */
  maker: TestWallet;
  legs: Array<[marketId: number, direction: Direction]>;
  stakeMicros?: number;
  oddsBps?: number;
}

let nonce = Date.now();

/** FOK order, one quote at `oddsBps` (default 2.0) for the whole stake, closed after the quote window: the position id. */
export async function fillPosition(orm: Orm, deps: RfqDeps, f: FillInput): Promise<string> {
  const em = () => orm.em.fork();
  const domain = rfqDomainOf(deps.settings);
  const stake = f.stakeMicros ?? 1_000_000;
  const order = {
    taker: f.taker.wallet.address,
    legs: f.legs.map(([market_id, direction]) => ({ market_id, direction })),
    stake_micros: stake,
    min_odds_bps: 10_001,
    order_type: 'FOK' as const,
    nonce: ++nonce,
    deadline_ms: Date.now() + 20_000,
  };
  const signature = await f.taker.wallet.signTypedData(orderTypedData(domain, order));
  const r = await inTransaction(em(), (tx) =>
    createRfq(tx, deps, {
      userId: f.taker.userId,
      sessionAddress: f.taker.wallet.address,
      order,
      signature,
      fillMode: 'best',
      idempotencyKey: randomUUID(),
    }),
  );
  const rfqId = r.rfq.rfq.id;
  const q = {
    rfq_id: rfqId,
    maker: f.maker.address,
    odds_bps: f.oddsBps ?? 20_000,
    max_fill_micros: stake,
    valid_until_ms: Date.now() + 10_000,
  };
  const ack = await submitQuote(em(), deps, f.maker.address, { ...q, signature: await f.maker.signTypedData(quoteTypedData(domain, q)) });
  if (!ack.ack.accepted) throw new Error(`the quote was refused: ${JSON.stringify(ack.ack)}`);
  await new Promise((res) => setTimeout(res, deps.settings.quoteWindowMs + 50));
  const closed = await closeRfq(em(), deps, rfqId);
  if (closed.rfq.rfq.status !== 'filled' || !closed.rfq.rfq.positionId)
    throw new Error(`the RFQ did not fill: ${JSON.stringify(closed.rfq.rfq)}`);
  return closed.rfq.rfq.positionId;
}
