// `npm run bench:deposits [-- --n 2000 --concurrency 16]`: deposits settled per second end to end (HTTP ->
// idempotency claim -> operation + outbox -> BullMQ job on Redis -> worker -> ledger posting -> the
// request sees the result and answers 200) next to the same ledger writes done by plain SQL transactions
// with pg, in the same run on the same PostgreSQL. Needs PostgreSQL and Redis like the tests.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, createTestPrivy } from '../../src/testing/identity.js';
import { ledgerProblems, newUserSession } from '../../src/testing/money.js';
import { startBenchService } from './harness.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' } } });
const N = Number(values.n);
const C = Number(values.concurrency);

const privy = await createTestPrivy();
const bench = await startBenchService('bench', { NODE_ENV: 'test', ...privy.env });
const { db, svc } = bench;
const pool = new pg.Pool({ connectionString: db.url, max: C });
try {
  const base = svc.baseUrl;
  await svc.waitForLog((l) => l.msg === 'workers started');
  const users = await Promise.all(Array.from({ length: C }, () => newUserSession(base, privy)));

  // Warm-up (JIT, connection pools, account rows).
  await Promise.all(
    users.map((u) => call(base, 'POST /v1/users/deposit', { token: u.token, body: { amount_micros: 1, idempotency_key: randomUUID() } })),
  );

  let statuses: Record<number, number> = {};
  const perLane = Math.ceil(N / C);
  let t0 = performance.now();
  await Promise.all(
    users.map(async (u) => {
      for (let i = 0; i < perLane; i++) {
        const r = await call(base, 'POST /v1/users/deposit', { token: u.token, body: { amount_micros: 1, idempotency_key: randomUUID() } });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    }),
  );
  const httpSeconds = (performance.now() - t0) / 1000;
  const httpDone = perLane * C;
  const httpStatuses = statuses;
  statuses = {};

  // The same writes as one plain SQL transaction per deposit: operation row, locked accounts, ledger
  // transaction, two entries (the trigger updates the cached balances), final status.
  const clearing = (await pool.query(`select id from ledger_accounts where kind = 'settlement_clearing'`)).rows[0].id as string;
  const available = new Map<string, string>();
  for (const u of users)
    available.set(
      u.userId,
      (await pool.query(`select id from ledger_accounts where user_id = $1 and kind = 'user_available'`, [u.userId])).rows[0].id,
    );
  t0 = performance.now();
  await Promise.all(
    users.map(async (u) => {
      const client = await pool.connect();
      try {
        for (let i = 0; i < perLane; i++) {
          const op = randomUUID();
          const tx = randomUUID();
          const acct = available.get(u.userId)!;
          await client.query('begin');
          await client.query(`insert into operations (id, user_id, kind, amount) values ($1, $2, 'deposit', 1)`, [op, u.userId]);
          const [lo, hi] = BigInt(acct) < BigInt(clearing) ? [acct, clearing] : [clearing, acct];
          await client.query('select balance from ledger_accounts where id = $1 for update', [lo]);
          await client.query('select balance from ledger_accounts where id = $1 for update', [hi]);
          await client.query(`insert into ledger_transactions (id, kind, reference) values ($1, 'deposit', $2)`, [tx, op]);
          await client.query('insert into ledger_entries (transaction_id, account_id, amount) values ($1, $2, -1), ($1, $3, 1)', [
            tx,
            clearing,
            acct,
          ]);
          await client.query(`update operations set status = 'success', tx_hash = $2, settled_at = now() where id = $1`, [
            op,
            `0x${tx.replace(/-/g, '').padEnd(64, '0')}`,
          ]);
          await client.query('commit');
          statuses[200] = (statuses[200] ?? 0) + 1;
        }
      } finally {
        client.release();
      }
    }),
  );
  const sqlSeconds = (performance.now() - t0) / 1000;
  const problems = await ledgerProblems(pool);
  const httpRate = httpDone / httpSeconds;
  const sqlRate = httpDone / sqlSeconds;
  process.stdout.write(
    `${JSON.stringify(
      {
        deposits: httpDone,
        concurrency: C,
        end_to_end: { seconds: +httpSeconds.toFixed(2), per_second: +httpRate.toFixed(1), statuses: httpStatuses },
        plain_sql: { seconds: +sqlSeconds.toFixed(2), per_second: +sqlRate.toFixed(1) },
        ratio_sql_over_end_to_end: +(sqlRate / httpRate).toFixed(1),
        ledger_problems: problems.length,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await pool.end();
  await bench.stop();
}
