// Fault-drill harness: a private PostgreSQL and Redis (free ports, temp dirs), the service as an API
// process and a workers process against them, a stream of deposits, and the checks that run after the
// fault: every accepted operation settled exactly once, the ledger balances, no idempotency key is stuck.
// Traffic goes to 127.0.0.1 only; everything is bounded in count and time.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../../src/testing/private-servers.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';
import { createTestPrivy, type TestPrivy } from '../../src/testing/identity.js';
import { ledgerProblems, newUserSession } from '../../src/testing/money.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const DEPOSIT_MICROS = 1_000_000;
export const DRILL_OPERATOR_TOKEN = `drill-operator-${randomUUID()}`;
export const DRILL_SIWE_DOMAIN = 'drill.test';

export interface Env {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  dbUrl: string;
  privy: TestPrivy;
  api: ServiceProcess;
  workers: ServiceProcess;
  startApi(): Promise<ServiceProcess>;
  startWorkers(): Promise<ServiceProcess>;
  sql: pg.Pool;
  close(): Promise<void>;
}

export async function openEnv(label: string): Promise<Env> {
  const pgServer = await startPrivatePostgres();
  const redis = await startPrivateRedis();
  const admin = new pg.Client({ connectionString: pgServer.adminUrl });
  await admin.connect();
  await admin.query(`create database drill`);
  await admin.end();
  const dbUrl = pgServer.adminUrl.replace(/\/postgres$/, '/drill');
  const privy = await createTestPrivy();
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: `drill${label.replace(/[^a-z0-9]/gi, '')}`.slice(0, 32),
    RATE_LIMIT_PER_MINUTE: '0',
    DEPOSIT_SYNC_WAIT_MS: '2000',
    QUEUE_WAIT_MS: '2000',
    LOG_LEVEL: 'info',
    // For drills that trade (workers-outage): an operator registers a market maker, which signs in with SIWE.
    OPERATOR_TOKEN: DRILL_OPERATOR_TOKEN,
    SIWE_DOMAIN: DRILL_SIWE_DOMAIN,
    ...privy.env,
  };
  const e: Env = {
    pg: pgServer,
    redis,
    dbUrl,
    privy,
    api: undefined as unknown as ServiceProcess,
    workers: undefined as unknown as ServiceProcess,
    async startApi() {
      e.api = await startServiceProcess({ env, args: ['--role=api'] });
      return e.api;
    },
    async startWorkers() {
      e.workers = await startServiceProcess({ env, args: ['--role=workers'], readyWhen: (l) => l.msg === 'workers started' });
      return e.workers;
    },
    sql: new pg.Pool({ connectionString: dbUrl, max: 2 }),
    async close() {
      await e.sql.end().catch(() => undefined);
      await e.api?.stop('SIGKILL').catch(() => undefined);
      await e.workers?.stop('SIGKILL').catch(() => undefined);
      await redis.destroy();
      pgServer.destroy();
    },
  };
  e.sql.on('error', () => undefined);
  await e.startApi();
  await e.startWorkers();
  return e;
}

type Answer = number | 'error';
interface KeyRecord {
  key: string;
  token: string;
  answers: Array<{ phase: string; status: Answer }>;
  final?: { status: number; operationId: string | null };
}

/** Deposits from `users` sessions, `concurrency` at a time, each with a fresh idempotency key. */
export class DepositStream {
  phase = 'before';
  readonly keys: KeyRecord[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly env: Env,
    private readonly tokens: string[],
    /** The stream's users: verify() checks their books (other users of a drill trade, e.g. workers-outage). */
    readonly userIds: string[],
    private readonly concurrency = 6,
    private readonly maxRequests = 400,
  ) {}

  static async create(env: Env, users = 6): Promise<DepositStream> {
    const sessions: Array<{ token: string; userId: string }> = [];
    for (let i = 0; i < users; i++) sessions.push(await newUserSession(env.api.baseUrl, env.privy));
    return new DepositStream(
      env,
      sessions.map((s) => s.token),
      sessions.map((s) => s.userId),
    );
  }

  start(): void {
    this.running = true;
    for (let i = 0; i < this.concurrency; i++) this.loops.push(this.loop(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(i: number): Promise<void> {
    let n = 0;
    while (this.running && this.keys.length < this.maxRequests) {
      const rec: KeyRecord = { key: randomUUID(), token: this.tokens[(i + n++) % this.tokens.length]!, answers: [] };
      this.keys.push(rec);
      const phase = this.phase;
      const r = await deposit(this.env.api.baseUrl, rec);
      rec.answers.push({ phase, status: r.status });
      if (r.status === 200 || r.status === 202 || r.status === 422) rec.final = { status: r.status, operationId: r.operationId };
      if (r.status === 'error' || r.status >= 500) await sleep(200);
    }
  }

  /** Status counts per phase, e.g. {before: {200: 40}, fault: {503: 12, 202: 3}}. */
  summary(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const k of this.keys)
      for (const a of k.answers) {
        const p = (out[a.phase] ??= {});
        p[String(a.status)] = (p[String(a.status)] ?? 0) + 1;
      }
    return out;
  }
}

async function deposit(baseUrl: string, rec: KeyRecord): Promise<{ status: Answer; operationId: string | null }> {
  try {
    const res = await fetch(`${baseUrl}/v1/users/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rec.token}` },
      body: JSON.stringify({ amount_micros: DEPOSIT_MICROS, idempotency_key: rec.key }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await res.json().catch(() => ({}))) as { operation_id?: string; details?: { operation_id?: string } };
    return { status: res.status, operationId: body.operation_id ?? body.details?.operation_id ?? null };
  } catch {
    return { status: 'error', operationId: null };
  }
}

export async function waitReady(env: Env, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const status = await fetch(`${env.api.baseUrl}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not ready ${timeoutMs} ms after the fault (last /readyz: ${status})`);
    await sleep(250);
  }
}

export interface Verdict {
  keys: number;
  retried: number;
  stuckKeys: number;
  operations: number;
  orphanOperations: number;
  pendingOperations: number;
  doubleSettled: number;
  balanceMismatches: number;
  ledgerProblems: number;
  inProgressKeys: number;
  ok: boolean;
}

/**
 * After the fault: retry every key without a final answer (same key, same body) until it has one, wait for
 * every operation to settle, then check the books. Bounded by `timeoutMs`.
 */
export async function verify(env: Env, stream: DepositStream, timeoutMs = 90_000): Promise<Verdict> {
  const until = Date.now() + timeoutMs;
  let retried = 0;
  for (;;) {
    const open = stream.keys.filter((k) => !k.final);
    if (!open.length || Date.now() > until) break;
    await Promise.all(
      open.map(async (k) => {
        retried++;
        const r = await deposit(env.api.baseUrl, k);
        k.answers.push({ phase: 'retry', status: r.status });
        if (r.status === 200 || r.status === 202 || r.status === 422) k.final = { status: r.status, operationId: r.operationId };
      }),
    );
    if (stream.keys.some((k) => !k.final)) await sleep(1000);
  }
  const q = async <T>(text: string, params: unknown[] = []) => (await env.sql.query(text, params)).rows as T[];
  for (;;) {
    const n = (
      await q<{ n: number }>(`select count(*)::int as n from operations where status = 'pending' and user_id = any($1)`, [stream.userIds])
    )[0]!.n;
    if (n === 0 || Date.now() > until) break;
    await sleep(500);
  }
  const answered = new Set(stream.keys.map((k) => k.final?.operationId).filter((id): id is string => !!id));
  const ops = await q<{ id: string; status: string; txs: number }>(
    `select o.id, o.status, (select count(*)::int from ledger_transactions t where t.reference = o.id::text and t.kind = 'deposit') as txs
       from operations o where o.user_id = any($1)`,
    [stream.userIds],
  );
  const mismatches = await q<{ user_id: string }>(
    `select a.user_id from ledger_accounts a
      where a.kind = 'user_available' and a.user_id = any($1)
        and a.balance <> coalesce((select sum(o.amount) from operations o where o.user_id = a.user_id and o.kind = 'deposit' and o.status = 'success'), 0)`,
    [stream.userIds],
  );
  const inProgress = (await q<{ n: number }>(`select count(*)::int as n from idempotency_keys where state = 'in_progress'`))[0]!.n;
  const problems = await ledgerProblems(env.sql as unknown as pg.Client);
  const v: Verdict = {
    keys: stream.keys.length,
    retried,
    stuckKeys: stream.keys.filter((k) => !k.final).length,
    operations: ops.length,
    orphanOperations: ops.filter((o) => !answered.has(o.id)).length,
    pendingOperations: ops.filter((o) => o.status === 'pending').length,
    doubleSettled: ops.filter((o) => (o.status === 'success' ? o.txs !== 1 : o.txs !== 0)).length,
    balanceMismatches: mismatches.length,
    ledgerProblems: problems.length,
    inProgressKeys: inProgress,
    ok: false,
  };
  v.ok =
    !v.stuckKeys &&
    !v.orphanOperations &&
    !v.pendingOperations &&
    !v.doubleSettled &&
    !v.balanceMismatches &&
    !v.ledgerProblems &&
    !v.inProgressKeys &&
    v.operations === answered.size;
  return v;
}
