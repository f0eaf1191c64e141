// Exactly once for the RFQ writes under faults, as src/http/exactly-once.int.test.ts does for deposits and
// entries: createRfq (the RFQ and its stake's reservation) and acceptRfqQuote (the position, the maker's
// liability, the quotes' outcomes). (1) A database error right after the write committed: the first answer
// is the stored outcome, a retry with the same key replays it; (2) the API process SIGKILLed between
// commit and response: the retry on another process replays it. Each ends with exactly one RFQ (one
// position), the right balances and a clean ledger. Faults come from FAILPOINTS in extra API processes.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RfqDomain } from '../domain/rfq/typed-data.js';
import { acceptRfqQuote, createRfq } from '../../generated/openapi/sdk.gen.js';
import type { Rfq } from '../../generated/openapi/types.gen.js';
import type { TestPrivy } from '../testing/identity.js';
import { sdkClient, send, type SdkResponse } from '../testing/sdk-client.js';
import { ledgerProblems } from '../testing/money.js';
import {
  balances,
  buildOrder,
  currentMarketId,
  fetchDomain,
  newTaker,
  postOrder,
  signOrder,
  readyMaker,
  type MakerConnection,
  type Party,
} from '../testing/rfq-trade.js';
import { expectReplayed, sendToProcessKilledAfterCommit } from '../testing/exactly-once.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const SIWE_DOMAIN = 'rfq-once.test';
const USDC = 1_000_000;
const STAKE = 2 * USDC;

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let domain: RfqDomain;
let market: number;
let mm: MakerConnection & { party: Party };

beforeAll(async () => {
  t = await startTestService('rfqonce', { SIWE_DOMAIN, DEMO_ONCHAIN_BALANCE_MICROS: String(1_000_000 * USDC) });
  ({ svc, privy, sql } = t);
  domain = await fetchDomain(svc.baseUrl);
  market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
  mm = await readyMaker(svc.baseUrl, { operatorToken: t.operatorToken, siweDomain: SIWE_DOMAIN, domain, collateralMicros: 1000 * USDC });
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  mm?.close();
  await t?.stop();
});

const faultyApi = (failpoints: string) => startServiceProcess({ env: { ...t.env, FAILPOINTS: failpoints }, args: ['--role=api'] });
const count = async (table: string, where: string, params: unknown[]) =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`, params)).rows[0].n);

interface Ctx {
  taker: Party;
  order: ReturnType<typeof buildOrder>;
  rfqId?: string;
  quoteId?: string;
}

/** Both writes answer the RFQ. */
type Answer = SdkResponse<Rfq | undefined, { code: string } | undefined>;

interface Flow {
  operationId: 'createRfq' | 'acceptRfqQuote';
  status: number;
  prepare(): Promise<Ctx>;
  send(baseUrl: string, c: Ctx, key: string): Promise<Answer>;
  /** One write for this key, and the balances after it. */
  check(c: Ctx, answer: Answer): Promise<void>;
}

const flows: Flow[] = [
  {
    operationId: 'createRfq',
    status: 201,
    async prepare() {
      const taker = await newTaker(svc.baseUrl, privy, 10 * USDC);
      return { taker, order: buildOrder(taker.wallet.address, [{ market_id: market, direction: 'up' }], { stake_micros: STAKE }) };
    },
    // Manual mode: the answer is the open RFQ at once (best mode would wait for the quote window).
    send: async (base, c, key) =>
      send(
        createRfq({
          client: sdkClient(base, c.taker.token),
          body: { order: c.order, signature: await signOrder(c.taker.wallet, domain, c.order), fill_mode: 'manual', idempotency_key: key },
        }),
      ),
    async check(c, answer) {
      expect(await count('rfqs', 'taker_user_id = $1', [c.taker.userId])).toBe(1);
      expect(answer.data).toMatchObject({ status: 'open', stake_micros: String(STAKE) });
      expect(await balances(svc.baseUrl, c.taker.token)).toEqual({ available: String(10 * USDC - STAKE), reserved: String(STAKE) });
    },
  },
  {
    operationId: 'acceptRfqQuote',
    status: 200,
    async prepare() {
      const taker = await newTaker(svc.baseUrl, privy, 10 * USDC);
      const order = buildOrder(taker.wallet.address, [{ market_id: market, direction: 'up' }], { stake_micros: STAKE });
      const created = await postOrder(svc.baseUrl, taker, domain, order, { fillMode: 'manual' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const rfqId = created.body.rfq_id as string;
      const ack = await mm.quote(rfqId, { odds_bps: 19_000, max_fill_micros: STAKE });
      expect(ack).toMatchObject({ accepted: true });
      return { taker, order, rfqId, quoteId: ack.quote_id as string };
    },
    send: (base, c, key) =>
      send(
        acceptRfqQuote({
          client: sdkClient(base, c.taker.token),
          path: { rfq_id: c.rfqId! },
          body: { quote_id: c.quoteId!, idempotency_key: key },
        }),
      ),
    async check(c, answer) {
      expect(await count('positions', 'rfq_id = $1', [c.rfqId])).toBe(1);
      expect(await count('position_fills f join positions p on p.id = f.position_id', 'p.rfq_id = $1', [c.rfqId])).toBe(1);
      expect(await count('ledger_transactions', `kind = 'rfq_fill' and idempotency_key = $1`, [`rfq:${c.rfqId}`])).toBe(1);
      expect(answer.data).toMatchObject({ status: 'filled', filled_stake_micros: String(STAKE), odds_bps: 19_000 });
      // The stake stays reserved in the position; the maker's liability (1.9x - 1 of the stake) is reserved.
      expect(await balances(svc.baseUrl, c.taker.token)).toEqual({ available: String(10 * USDC - STAKE), reserved: String(STAKE) });
    },
  },
];

const replayOnHealthyService = (f: Flow, c: Ctx, key: string) =>
  expectReplayed(
    () => f.send(svc.baseUrl, c, key),
    f.status,
    (res) => f.check(c, res),
  );

describe('RFQ writes: a database error right after the write committed', () => {
  let faulty: ServiceProcess;
  beforeAll(async () => {
    faulty = await faultyApi(flows.map((f) => `after-commit:${f.operationId}=error`).join(','));
  });
  afterAll(async () => {
    await faulty?.stop();
  });

  for (const f of flows) {
    it(`${f.operationId}: the first answer is the stored outcome (${f.status}), the retry replays it, one write`, async () => {
      const c = await f.prepare();
      const key = randomUUID();
      const first = await f.send(faulty.baseUrl, c, key);
      expect(first.status, JSON.stringify(first.error)).toBe(f.status);
      // The failpoint fired: the faulty process answered from the stored outcome, not a live read.
      await faulty.waitForLog(
        (l) =>
          l.msg === 'the write committed but its outcome could not be read; answering the stored outcome' &&
          l.resource_id === first.data?.rfq_id,
        5_000,
      );
      await f.check(c, first);
      const replay = await replayOnHealthyService(f, c, key);
      expect(replay.data?.rfq_id).toBe(first.data?.rfq_id);
    });
  }
});

describe('RFQ writes: an API process SIGKILLed between commit and response', () => {
  for (const f of flows) {
    it(`${f.operationId}: the retry on another process replays the committed write, one write`, async () => {
      const c = await f.prepare();
      const key = randomUUID();
      await sendToProcessKilledAfterCommit(t.env, f.operationId, (baseUrl) => f.send(baseUrl, c, key));
      await replayOnHealthyService(f, c, key);
    });
  }
});
