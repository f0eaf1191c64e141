// The service in SETTLEMENT_MODE=onchain as separate real processes against a local chain
// (src/testing/chain.ts): a fresh PostgreSQL database, Redis queues (or BullMQ's PostgreSQL backend for the
// PostgreSQL-only deployment), API processes and a workers process. Used by the onchain integration tests
// and the settlement drills. Users sign in with wallets whose keys the test holds, so they can approve.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startRpcProxy, startTestChain, type RpcProxy, type TestChain, type TestChainOptions } from './chain.js';
import { startProviderProxy, type ProviderProxy } from './rpc-provider.js';
import { createDeposit, createSession, createWithdrawal, getOperation } from '../../generated/openapi/sdk.gen.js';
import { createTestPrivy, type TestPrivy } from './identity.js';
import { ledgerProblems } from './money.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './postgres.js';
import { sdkClient, sent } from './sdk-client.js';
import { builtEntry, startServiceProcess, type ServiceProcess } from './service-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface OnchainUser {
  wallet: PrivateKeyAccount;
  token: string;
  userId: string;
}

export interface SentRow {
  hash: string;
  nonce: number;
  attempt: number;
  receipt_status: string | null;
  max_fee: string;
}

export interface OnchainStack {
  chain: TestChain;
  /** With `proxy`: the services reach the node through it (pause() makes the node unreachable). */
  proxy: RpcProxy | undefined;
  /**
   * With `provider`: the services reach the node through a hosted-provider stand-in (src/testing/rpc-provider.ts):
   * the test switches its behaviours (receipt hiding, 429s, log caps, a lagging backend, stalls, refusals) at run time.
   */
  provider: ProviderProxy | undefined;
  db: TestDatabase;
  sql: pg.Client;
  privy: TestPrivy;
  env: Record<string, string>;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  startWorkers(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** A user signed in with a fresh wallet holding gas and `usdcMicros` on the chain (and nothing in the app). */
  newUser(usdcMicros?: bigint): Promise<OnchainUser>;
  /** A user with `micros` available in the app, deposited by a real pull deposit (approve + POST /v1/users/deposit). */
  fundedUser(micros: bigint): Promise<OnchainUser>;
  /** A real pull deposit of `micros` from the user's wallet (which holds them on the chain), waited for until final. */
  pullDeposit(user: OnchainUser, micros: bigint): Promise<void>;
  /** POST /v1/users/withdraw of `micros` to a fresh address; the answer's status and operation id. */
  withdraw(user: OnchainUser, micros: number, api?: number): Promise<{ id: string; to: Address; status: number }>;
  /** Every transaction the operation signed, first attempt first. */
  sentRows(id: string): Promise<SentRow[]>;
  /**
   * Waits for the withdrawal to be final, then what is wrong with it, if anything: not `success`, not
   * exactly one Transfer of `micros` to `to` in the hash answered, not exactly one reserve and one settle
   * posting, ledger problems, or a reconciliation that is not square.
   */
  paidOnceProblems(user: OnchainUser, id: string, to: Address, micros: number): Promise<string[]>;
  /** Polls GET /v1/users/operations/{id} until the operation is final. */
  final(user: OnchainUser, operationId: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  ledgerProblems(): Promise<unknown[]>;
  /** Runs a script of scripts/ with the service's env (e.g. the runbook's commands): its exit code and output. */
  script(path: string, args?: string[]): Promise<{ code: number | null; output: string }>;
  /** `npm run ledger:check` with the service's env: its exit code and its onchain reconciliation line. */
  ledgerCheck(): Promise<{ code: number | null; onchain: Record<string, unknown> | undefined; output: string }>;
  stop(): Promise<void>;
}

export interface OnchainStackOptions {
  label: string;
  deployment: 'redis' | 'postgres';
  apis?: number;
  chain?: TestChainOptions;
  env?: Record<string, string>;
  /** Settings that need the chain first (e.g. a contract the test deploys, such as SANCTIONS_ORACLE_ADDRESS), added to `env`. */
  chainEnv?: (chain: TestChain) => Promise<Record<string, string>>;
  /** Start no workers process (the test starts them). */
  noWorkers?: boolean;
  /** Put a TCP proxy between the services and the node. */
  proxy?: boolean;
  /** Put the hosted-provider stand-in between the services (and `ledgerCheck`) and the node; exclusive with `proxy`. */
  provider?: boolean;
  /** Servers other than the shared test ones (the drills run on private servers). */
  adminUrl?: string;
  redisUrl?: string;
}

export async function startOnchainStack(opts: OnchainStackOptions): Promise<OnchainStack> {
  if (opts.proxy && opts.provider) throw new Error('startOnchainStack: choose proxy or provider (the provider can refuse connections too)');
  const chain = await startTestChain({ settlementUsdcMicros: 0n, usdc: 'circle', ...opts.chain });
  const fromChain = opts.chainEnv
    ? await opts.chainEnv(chain).catch(async (err: unknown) => {
        await chain.stop();
        throw err;
      })
    : {};
  const proxy = opts.proxy ? await startRpcProxy(chain.anvil.port) : undefined;
  const provider = opts.provider ? await startProviderProxy({ upstream: chain.anvil.url }) : undefined;
  const db = await createTestDatabase(opts.label, opts.adminUrl);
  const privy = await createTestPrivy();
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    QUEUE_PREFIX: uniquePrefix(opts.label),
    RATE_LIMIT_PER_MINUTE: '0',
    DEPOSIT_SYNC_WAIT_MS: '0',
    ...(opts.deployment === 'redis' ? { REDIS_URL: opts.redisUrl ?? TEST_REDIS_URL } : {}),
    ...privy.env,
    ...chain.env,
    ...(proxy ? { CHAIN_RPC_URL: proxy.url } : {}),
    ...(provider ? { CHAIN_RPC_URL: provider.url } : {}),
    ...fromChain,
    ...opts.env,
  };
  const apis: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  const stack: OnchainStack = {
    chain,
    proxy,
    provider,
    db,
    sql,
    privy,
    env,
    apis,
    workers,
    async startWorkers(extra = {}) {
      const w = await startServiceProcess({
        env: { ...env, ...extra },
        args: ['--role=workers'],
        readyWhen: (l) => l.msg === 'workers started',
      });
      workers.push(w);
      return w;
    },
    async newUser(usdcMicros = 0n) {
      const wallet = await chain.newWallet(usdcMicros);
      const res = await sent(
        createSession({
          client: sdkClient(apis[0]!.baseUrl),
          body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
        }),
      );
      if (!res.data) throw new Error(`session exchange answered ${res.status}: ${JSON.stringify(res.error)}`);
      return { wallet, token: res.data.session_token, userId: res.data.user_id };
    },
    async fundedUser(micros) {
      const u = await stack.newUser(micros);
      await stack.pullDeposit(u, micros);
      return u;
    },
    async pullDeposit(u, micros) {
      await chain.approve(u.wallet, chain.settlement.address, micros);
      const res = await sent(
        createDeposit({
          client: sdkClient(apis[0]!.baseUrl, u.token),
          body: { amount_micros: Number(micros), idempotency_key: crypto.randomUUID() },
        }),
      );
      if (!res.data) throw new Error(`deposit answered ${res.status}: ${JSON.stringify(res.error)}`);
      const op = await stack.final(u, res.data.operation_id);
      if (op.status !== 'success') throw new Error(`deposit ended ${JSON.stringify(op)}`);
    },
    async final(user, operationId, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const r = await sent(getOperation({ client: sdkClient(apis[0]!.baseUrl, user.token), path: { operation_id: operationId } }));
        if (r.data && r.data.status !== 'pending') return r.data as Record<string, unknown>;
        if (Date.now() > until)
          throw new Error(`operation ${operationId} still ${JSON.stringify(r.data ?? r.error)} after ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 100));
      }
    },
    async withdraw(user, micros, api = 0) {
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const res = await sent(
        createWithdrawal({
          client: sdkClient(apis[api]!.baseUrl, user.token),
          body: { amount_micros: micros, destination_address: to, idempotency_key: crypto.randomUUID() },
        }),
      );
      // A refused withdrawal (422) names its failed operation in the error's details.
      const id = res.data?.operation_id ?? (res.error?.details as { operation_id?: string } | null)?.operation_id;
      return { id: id!, to, status: res.status };
    },
    async sentRows(id) {
      const { rows } = await sql.query(
        `select hash, nonce::int as nonce, attempt, receipt_status, max_fee_per_gas::text as max_fee
           from chain_transactions where operation_id = $1 order by attempt`,
        [id],
      );
      return rows as SentRow[];
    },
    async paidOnceProblems(user, id, to, micros) {
      const problems: string[] = [];
      const op = await stack.final(user, id, 120_000);
      if (op.status !== 'success') problems.push(`operation ${id} ended ${JSON.stringify(op)}`);
      const paid = await chain.transfers(to);
      if (paid.length !== 1) problems.push(`${to} received ${paid.length} transfers`);
      else if (paid[0]!.value !== BigInt(micros) || paid[0]!.txHash !== op.tx_hash)
        problems.push(
          `${to}: ${JSON.stringify(paid[0], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))} vs ${String(op.tx_hash)}`,
        );
      const postings = (await sql.query(`select kind from ledger_transactions where reference = $1 order by kind`, [id])).rows.map(
        (r) => r.kind as string,
      );
      if (postings.join() !== 'withdraw_reserve,withdraw_settle') problems.push(`operation ${id} postings: ${postings.join()}`);
      for (const p of await ledgerProblems(sql)) problems.push(`ledger: ${JSON.stringify(p)}`);
      const check = await stack.ledgerCheck();
      // Exact: what the chain holds for users is every deposit not withdrawn (the clearing account). The surplus over
      // what users can withdraw is the treasury's (withdrawal fees), so it is not compared with 0.
      const o = check.onchain as Record<string, string> | undefined;
      const square = o && BigInt(o.held_micros!) - BigInt(o.uncredited_micros ?? '0') === BigInt(o.liabilities_micros!);
      if (check.code !== 0 || !square || check.onchain?.deficit !== false) problems.push(`ledger:check: ${check.output}`);
      return problems;
    },
    ledgerProblems: () => ledgerProblems(sql),
    async script(path, args = []) {
      const entry = builtEntry(path); // the tests' build when it holds the script (src/testing/test-build.ts)
      const child = spawn(process.execPath, [...(entry.endsWith('.js') ? [] : ['--import', 'tsx']), entry, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, output };
    },
    async ledgerCheck() {
      const { code, output } = await stack.script('scripts/ledger-check.ts');
      const line = output.split('\n').find((l) => l.startsWith('{"onchain"'));
      return { code, onchain: line ? (JSON.parse(line) as { onchain: Record<string, unknown> }).onchain : undefined, output };
    },
    async stop() {
      for (const p of [...workers, ...apis]) await p.stop('SIGKILL').catch(() => undefined);
      await sql.end().catch(() => undefined);
      await db.drop().catch(() => undefined);
      await proxy?.stop();
      await provider?.stop();
      await chain.stop();
    },
  };
  try {
    for (let i = 0; i < (opts.apis ?? 1); i++) apis.push(await startServiceProcess({ env, args: ['--role=api'] }));
    if (!opts.noWorkers) await stack.startWorkers();
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}
