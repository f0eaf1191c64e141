// RFQ windows resolve and settle through real worker processes (PostgreSQL + Redis), on 8-second windows:
// a worker SIGKILLed before the window ends and another started after it settles every position within
// 30 s, from the demo feed exactly as its published formula predicts, paying each winner once.
// Positions are made by the RFQ rules in this process against the service's own database.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../src/db/orm.js';
import { userBalances } from '../src/domain/ledger/ledger.js';
import { ensureWindows } from '../src/domain/markets/markets.js';
import { demoPriceMicros } from '../src/domain/prices/demo.js';
import { windowOutcome } from '../src/domain/prices/feed.js';
import { closeRfq, createRfq, submitQuote } from '../src/domain/rfq/api.js';
import type { RfqDeps } from '../src/domain/rfq/deps.js';
import { RFQ_EIP712_SALT_DEV } from '../src/constants.js';
import { orderTypedData, quoteTypedData, rfqDomain, type Direction } from '../src/domain/rfq/typed-data.js';
import { ledgerProblems } from '../src/testing/money.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';
import { fundedUser } from '../src/testing/funding.js';
import { inTransaction } from '../src/db/unit-of-work.js';

const DURATION = 8;
const BUFFER = 3000;
const SEED = 'resolve-window-itest';
const TAKER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MM = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);
const deps: RfqDeps = {
  settings: {
    minStakeMicros: 500_000n,
    maxStakeMicros: 10_000_000_000n,
    maxPayoutMicros: 50_000_000_000n,
    maxLegs: 9,
    // Room for the in-process quote (commit, viem signing, submit) on a box loaded by the whole suite: 300 ms was not.
    quoteWindowMs: 1000,
    maxDeadlineMs: 60_000,
    maxOpenPerUser: 100,
    eip712Name: 'contest-rfq-service',
    eip712Salt: RFQ_EIP712_SALT_DEV,
    minFillMicros: 10_000n,
    signingChainId: 8453,
    bettingCloseBufferMs: BUFFER,
  },
};

let database: TestDatabase;
let api: ServiceProcess;
let orm: Orm;
let sql: pg.Client;
let env: Record<string, string>;
const workers: ServiceProcess[] = [];
const em = () => orm.em.fork();

beforeAll(async () => {
  database = await createTestDatabase('rwin');
  env = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix('rwin'),
    RATE_LIMIT_PER_MINUTE: '0',
    MARKET_DURATIONS: String(DURATION),
    MARKET_BETTING_CLOSE_BUFFER_MS: String(BUFFER),
    RESOLUTION_DELAY_MS: '0',
    DEMO_PRICE_SEED: SEED,
  };
  api = await startServiceProcess({ env, args: ['--role=api'] }); // migrates the database
  orm = await createOrm({ databaseUrl: database.url });
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
});

afterAll(async () => {
  for (const w of workers) await w.stop('SIGKILL');
  await sql?.end();
  await orm?.close(true);
  await api?.stop();
  await database?.drop();
});

const user = (address: string, funds: bigint) => fundedUser(em, address, funds);

let nonce = 0;
async function fill(taker: string, marketId: number, direction: Direction): Promise<string> {
  const order = {
    taker: TAKER.address,
    legs: [{ market_id: marketId, direction }],
    stake_micros: 1_000_000,
    min_odds_bps: 10_001,
    order_type: 'FOK' as const,
    nonce: ++nonce,
    deadline_ms: Date.now() + 20_000,
  };
  const signature = await TAKER.signTypedData(orderTypedData(domain, order));
  const r = await inTransaction(em(), (tx) =>
    createRfq(tx, deps, { userId: taker, sessionAddress: TAKER.address, order, signature, fillMode: 'best', idempotencyKey: randomUUID() }),
  );
  const q = { rfq_id: r.rfq.rfq.id, maker: MM.address, odds_bps: 19_000, max_fill_micros: 1_000_000, valid_until_ms: Date.now() + 10_000 };
  expect(
    (await submitQuote(em(), deps, MM.address, { ...q, signature: await MM.signTypedData(quoteTypedData(domain, q)) })).ack.accepted,
  ).toBe(true);
  await new Promise((res) => setTimeout(res, Math.max(0, r.rfq.rfq.quoteDeadlineMs - Date.now() + 50)));
  const closed = await closeRfq(em(), deps, r.rfq.rfq.id);
  expect(closed.rfq.rfq.status).toBe('filled');
  return closed.rfq.rfq.positionId!;
}

const startWorker = async () => {
  const w = await startServiceProcess({ env, args: ['--role=workers'], readyWhen: (l) => l.msg === 'workers started' });
  workers.push(w);
  return w;
};

describe('window resolution by the workers', () => {
  it('a worker killed before the window ends, another started after: every position settles once, as the demo feed predicts', async () => {
    const taker = await user(TAKER.address, 100_000_000n);
    await user(MM.address, 100_000_000n);
    // A window with at least 4 s of betting left (two fills, each a 1 s quote window).
    let start = Math.floor(Date.now() / (DURATION * 1000)) * DURATION * 1000;
    if (start + DURATION * 1000 - BUFFER - Date.now() < 4000) start += DURATION * 1000;
    await ensureWindows(em(), [{ asset: 'BTC', durationSecs: DURATION, startAtMs: start }]);
    const marketId = Number(
      (await sql.query(`select market_id from markets where kind = 'rfq_window' and asset = 'BTC' and start_at_ms = $1`, [start])).rows[0]
        .market_id,
    );
    while (Date.now() < start) await new Promise((r) => setTimeout(r, 100));
    const up = await fill(taker, marketId, 'up');
    const down = await fill(taker, marketId, 'down');
    const before = await userBalances(em(), taker);

    const early = await startWorker();
    await new Promise((r) => setTimeout(r, 500));
    await early.stop('SIGKILL');
    const end = start + DURATION * 1000;
    while (Date.now() < end + 200) await new Promise((r) => setTimeout(r, 100));
    await startWorker();

    const status = async (id: string) => (await sql.query('select status from positions where id = $1', [id])).rows[0].status as string;
    await expect.poll(() => status(up), { timeout: 30_000, interval: 250 }).not.toBe('open');
    await expect.poll(() => status(down), { timeout: 30_000, interval: 250 }).not.toBe('open');
    const expected = windowOutcome(demoPriceMicros(SEED, 'BTC', start, 50)!, demoPriceMicros(SEED, 'BTC', end, 50)!);
    expect([await status(up), await status(down)]).toEqual(expected === 'YES' ? ['won', 'lost'] : ['lost', 'won']);
    const resolution = (await sql.query('select outcome, resolved_by, source from window_resolutions where market_id = $1', [marketId]))
      .rows[0];
    expect(resolution).toEqual({ outcome: expected, resolved_by: 'feed', source: 'demo' });

    // Exactly one winner's payout (1.9) credited; both stakes left reserved.
    const after = await userBalances(em(), taker);
    expect(after.available - before.available).toBe(1_900_000n);
    expect(before.reserved - after.reserved).toBe(2_000_000n);
    const settles = await sql.query(
      `select count(*)::int as n from ledger_transactions where kind = 'position_settle' and reference = $1`,
      [`window:${marketId}`],
    );
    expect(settles.rows[0].n).toBe(1);
    expect(await ledgerProblems(sql)).toEqual([]);
  });
});
