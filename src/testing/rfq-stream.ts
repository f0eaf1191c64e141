// The RFQ side of the market-maker WebSocket across two real API processes (A and B) on one PostgreSQL
// database and one Redis, for src/ws/rfq-stream-*.int.test.ts: registered, funded makers connected through
// the SDK client (every frame received is checked against spec/asyncapi.yaml after each test), a taker
// signed in on A, and windows far enough ahead that betting stays open through a file's tests.
//
// RFQs are POSTed to A (POST /v1/rfq); makers' collateral is credited straight into the ledger of the shared
// database; mm.event frames are published on a bus of this process (the real bus: the service processes
// hear it exactly as they hear each other).
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { MarketMakerClient, type ServerMessage, type WsMessages } from '@contest-rfq/sdk';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createMarketMaker } from '../../generated/openapi/sdk.gen.js';
import type { Bus } from '../bus/bus.js';
import { createBus } from '../bus/create.js';
import { readDeploymentId } from '../bus/deployment.js';
import { loadConfig } from '../config/load.js';
import { createOrm, type Orm } from '../db/orm.js';
import { db } from '../db/schema.js';
import { ensureWindows } from '../domain/markets/markets.js';
import { rfqDomainOf, type Direction, type RfqDomain, type RfqOrderJson } from '../domain/rfq/typed-data.js';
import { fundedUser } from './funding.js';
import { TEST_REDIS_URL } from './postgres.js';
import { newTaker, postOrder, type Party } from './rfq-trade.js';
import { sdkClient, sent } from './sdk-client.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import { startTestService, type TestService } from './test-service.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const QUOTES_PER_SECOND = 5;
const ENV = {
  MM_MAX_QUOTES_PER_SECOND: String(QUOTES_PER_SECOND),
  // No heartbeat tick during the suite: a removal can only reach the other process through the bus.
  MM_HEARTBEAT_INTERVAL_MS: '600000',
  // Wide enough for the sweeper case's maker to quote in time on a loaded machine.
  RFQ_QUOTE_WINDOW_MS: '4000',
  RFQ_MAX_OPEN_PER_USER: '1000',
};

type LegKey = 'BTC/300' | 'ETH/300' | 'BTC/900' | 'SOL/300';

export interface RfqStream {
  /** A (API and workers). */
  t: TestService;
  /** A second API process on the same database. */
  b: ServiceProcess;
  orm: Orm;
  bus: Bus;
  signingDomain: RfqDomain;
  /** Signed in on A, with 1000 USDC. */
  taker: Party;
  windows: Record<LegKey, number>;
}

let h: RfqStream | undefined;
let nonce = Date.now();
const clients: MarketMakerClient[] = [];
/** Extra service processes a test starts (stopped after the file's tests even when the test fails). */
export const extraProcesses: ServiceProcess[] = [];
/** Frames any client received that break spec/asyncapi.yaml: must be none after each test. */
export const invalidFrames: unknown[] = [];

/** Starts A and B before the file's tests and stops them after; read the value inside tests only. */
export function useRfqStream(label: string): RfqStream {
  beforeAll(async () => {
    const t = await startTestService(label, ENV);
    const b = await startServiceProcess({ env: t.env });
    const signingDomain = rfqDomainOf(loadConfig(t.env).rfq);
    const orm = await createOrm({ databaseUrl: t.db.url });
    const bus = await createBus({
      prefix: t.env.QUEUE_PREFIX!,
      redisUrl: TEST_REDIS_URL,
      deploymentId: await readDeploymentId(db(orm.em.fork())),
    });
    // Windows far enough ahead that betting stays open through the suite.
    const keys = (['BTC/300', 'ETH/300', 'BTC/900', 'SOL/300'] as const).map((k) => {
      const [asset, d] = k.split('/') as [string, string];
      const durationSecs = Number(d);
      const startAtMs = (Math.floor(Date.now() / (durationSecs * 1000)) + 1) * durationSecs * 1000;
      return { k, asset, durationSecs, startAtMs };
    });
    await ensureWindows(orm.em.fork(), keys);
    const windows = {} as Record<LegKey, number>;
    for (const w of keys) {
      const row = await db(orm.em.fork())
        .selectFrom('markets')
        .select('market_id')
        .where('kind', '=', 'rfq_window')
        .where('asset', '=', w.asset)
        .where('duration_secs', '=', w.durationSecs)
        .where('start_at_ms', '=', String(w.startAtMs))
        .executeTakeFirstOrThrow();
      windows[w.k] = Number(row.market_id);
    }
    const taker = await newTaker(t.svc.baseUrl, t.privy, 1_000_000_000);
    h = { t, b, orm, bus, signingDomain, taker, windows };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    for (const p of extraProcesses) await p.stop('SIGKILL');
    await h?.bus.close();
    await h?.orm.close(true);
    await h?.b.stop();
    await h?.t.stop();
  }, 60_000);

  afterEach(() => {
    // Every frame any client received in the test matches spec/asyncapi.yaml.
    expect(invalidFrames.splice(0)).toEqual([]);
  });

  return new Proxy({} as RfqStream, { get: (_, key) => started()[key as keyof RfqStream] });
}

function started(): RfqStream {
  if (!h) throw new Error('the RFQ stream processes are not started yet');
  return h;
}

export const wsUrl = (svc: ServiceProcess) => `${svc.baseUrl.replace(/^http/, 'ws')}/v1/ws`;
export const em = () => started().orm.em.fork();
export const userWithFunds = (address: string, funds: bigint) => fundedUser(em, address, funds);

/** Registers `account` as a market maker on A (POST /v1/admin/market-makers). */
export async function register(account: PrivateKeyAccount, name: string): Promise<void> {
  const { t } = started();
  const res = await sent(
    createMarketMaker({ client: sdkClient(t.svc.baseUrl, t.operatorToken), body: { wallet_address: account.address, name } }),
  );
  expect(res.status).toBe(201);
}

/** A registered market maker whose wallet also has a funded user account (its collateral). */
export async function maker(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await register(account, 'RFQ stream test');
  await userWithFunds(account.address, 1_000_000_000n);
  return account;
}

export interface Conn {
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
export async function connect(svc: ServiceProcess, account: PrivateKeyAccount): Promise<Conn> {
  const client = new MarketMakerClient({ url: wsUrl(svc), account, reconnect: false, rfqDomain: started().signingDomain });
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

export function order(legs: Array<[LegKey, Direction]>, over: Partial<RfqOrderJson> = {}): RfqOrderJson {
  const { taker, windows } = started();
  return {
    taker: taker.wallet.address,
    legs: legs.map(([k, direction]) => ({ market_id: windows[k], direction })),
    stake_micros: 2_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK',
    nonce: ++nonce,
    deadline_ms: Date.now() + 55_000,
    ...over,
  };
}

/** The `Rfq` body of POST /v1/rfq (the fields these tests read). */
export interface PostedRfq {
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
export async function openRfq(legs: Array<[LegKey, Direction]>): Promise<PostedRfq> {
  const { t, taker, signingDomain } = started();
  const res = await postOrder(t.svc.baseUrl, taker, signingDomain, order(legs), { fillMode: 'manual' });
  if (res.status !== 201) throw new Error(`POST /v1/rfq answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as PostedRfq;
}

export const quoteFor = (
  rfq: Pick<PostedRfq, 'rfq_id' | 'stake_micros' | 'expires_at_ms'>,
  over: Partial<{ odds_bps: number; max_fill_micros: number; client_quote_id: string }> = {},
) => ({
  rfq_id: rfq.rfq_id,
  odds_bps: 19_000,
  max_fill_micros: Number(rfq.stake_micros),
  valid_until_ms: rfq.expires_at_ms,
  ...over,
});
