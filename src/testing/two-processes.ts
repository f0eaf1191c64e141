// Two API processes on one database, for the market-maker tests of docs/market-makers.md: with Redis (the
// bus and queues on Redis) or with PostgreSQL only (`REDIS_URL` unset: LISTEN/NOTIFY and the PostgreSQL
// queue backend). A takes the first process of startTestService (API and workers), B is a second API
// process. Every frame a maker connection receives is kept for a check against spec/asyncapi.yaml.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import type { RfqDomain } from '../domain/rfq/typed-data.js';
import { ledgerProblems } from './money.js';
import {
  connectMaker,
  currentMarketId,
  fetchDomain,
  fundWallet,
  newTaker,
  registerMarketMaker,
  type MakerConnection,
  type Party,
} from './rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import { startTestService, type TestService } from './test-service.js';

export type Backend = 'redis' | 'postgres';
export const BACKENDS: readonly Backend[] = ['redis', 'postgres'];

const SIWE_DOMAIN = 'mm.test';
export const USDC = 1_000_000;

export interface TwoProcesses {
  t: TestService;
  a: ServiceProcess;
  b: ServiceProcess;
  domain: RfqDomain;
  /** A BTC and an ETH daily window: betting stays open through a test. */
  markets: { btc: number; eth: number };
  taker(fundMicros?: number): Promise<Party>;
  /** A registered maker with `collateralMicros` on its wallet's user account, connected to `on` and subscribed. */
  maker(on: ServiceProcess, collateralMicros?: number): Promise<MakerConnection>;
  /** Another connection of a registered maker's wallet, on `on` (not subscribed). */
  connect(on: ServiceProcess, wallet: MakerConnection['wallet']): Promise<MakerConnection>;
  /** Frames (of every maker connection opened here) that do not match spec/asyncapi.yaml. */
  invalidFrames(): unknown[];
  ledgerProblems(): Promise<unknown[]>;
  stop(): Promise<void>;
}

export async function startTwoProcesses(
  label: string,
  backend: Backend,
  env: Record<string, string | undefined> = {},
): Promise<TwoProcesses> {
  const t = await startTestService(`${label}${backend === 'redis' ? 'r' : 'p'}`, {
    SIWE_DOMAIN,
    RFQ_MAX_OPEN_PER_USER: '1000',
    ...(backend === 'postgres' ? { REDIS_URL: undefined } : {}),
    ...env,
  });
  const b = await startServiceProcess({ env: t.env, args: ['--role=api'] });
  const domain = await fetchDomain(t.svc.baseUrl);
  const markets = {
    btc: (await currentMarketId(t.svc.baseUrl, 'BTC', 86400)).marketId,
    eth: (await currentMarketId(t.svc.baseUrl, 'ETH', 86400)).marketId,
  };
  const makers: MakerConnection[] = [];
  const seen = new Set<unknown>();
  const invalid: unknown[] = [];
  return {
    t,
    a: t.svc,
    b,
    domain,
    markets,
    taker: (fundMicros = 100 * USDC) => newTaker(t.svc.baseUrl, t.privy, fundMicros),
    async maker(on, collateralMicros = 1000 * USDC) {
      const wallet = await registerMarketMaker(on.baseUrl, t.operatorToken);
      await fundWallet(on.baseUrl, wallet, SIWE_DOMAIN, collateralMicros);
      const m = await connectMaker(on.baseUrl, wallet, domain);
      makers.push(m);
      await m.subscribe();
      return m;
    },
    async connect(on, wallet) {
      const m = await connectMaker(on.baseUrl, wallet, domain);
      makers.push(m);
      return m;
    },
    invalidFrames() {
      for (const m of makers) {
        for (const f of m.frames) {
          if (seen.has(f)) continue;
          seen.add(f);
          if (!validateServerMessage(f)) invalid.push({ frame: f, errors: validateServerMessage.errors });
        }
      }
      return invalid.splice(0);
    },
    ledgerProblems: () => ledgerProblems(t.sql),
    async stop() {
      for (const m of makers) m.close();
      await b.stop();
      await t.stop();
    },
  };
}

/**
 * The two processes of a test file's describe block: started before its tests, stopped after them, and
 * after each test every frame a maker received matched the AsyncAPI schemas and the ledger is clean. The
 * value answers for the processes once they started (read it inside tests and hooks only).
 */
export function useTwoProcesses(label: string, backend: Backend, env: Record<string, string | undefined> = {}): TwoProcesses {
  let h: TwoProcesses | undefined;
  beforeAll(async () => {
    h = await startTwoProcesses(label, backend, env);
  }, 120_000);
  afterEach(async () => {
    expect(h!.invalidFrames()).toEqual([]);
    expect(await h!.ledgerProblems()).toEqual([]);
  });
  afterAll(async () => {
    await h?.stop();
  }, 60_000);
  return new Proxy({} as TwoProcesses, {
    get: (_, key) => {
      if (!h) throw new Error(`the two processes of ${label} are not started yet`);
      return h[key as keyof TwoProcesses];
    },
  });
}
