// Medium tier: the user event log's append (Migration20261130020000_user_events_plpgsql) on real PostgreSQL.
// One event (its own path) and several (the set-based statement), called from concurrent transactions on the
// same users, number each user's events 1, 2, 3... without a gap or a duplicate, and never deadlock; a null
// user records nothing.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fundedUser } from '../../testing/funding.js';
import { randomWallet } from '../../testing/identity.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';

let t: MigratedOrm;
let pool: pg.Pool;
beforeAll(async () => {
  t = await migratedOrm('userevappend');
  pool = new pg.Pool({ connectionString: t.db.url, max: 8 });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

const newUser = () => fundedUser(() => t.orm.em.fork(), randomWallet().address.toLowerCase(), 0n);

/** One transaction appending one event per entry of `users` in one call, holding its head locks `holdMs` before committing. */
async function append(users: string[], holdMs: number) {
  const c = await pool.connect();
  try {
    await c.query('begin');
    await c.query(`select user_events_append($1::uuid[], $2::text[], $3::jsonb[])`, [
      users,
      users.map(() => 'balance'),
      users.map((u, i) => JSON.stringify({ u, i })),
    ]);
    if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
    await c.query('commit');
  } finally {
    c.release();
  }
}

const seqsOf = async (user: string) =>
  (await pool.query<{ seq: string }>('select seq from user_events where user_id = $1 order by seq', [user])).rows.map((r) => Number(r.seq));

it('is PL/pgSQL (its plans kept for the session), not a LANGUAGE sql function planned at every call', async () => {
  const { rows } = await pool.query(
    `select l.lanname from pg_proc p join pg_language l on l.oid = p.prolang where p.proname = 'user_events_append'`,
  );
  expect(rows).toEqual([{ lanname: 'plpgsql' }]);
});

it('numbers concurrent single and multi-event appends 1..n per user, without a gap, a duplicate or a deadlock', async () => {
  const [a, b, c] = [await newUser(), await newUser(), await newUser()];
  const sorted = [a, b, c].sort();
  // Single events on each user; two-user and three-user calls in user_id order (as the ledger trigger sorts them);
  // one call with two events of one user; each transaction holds its head locks a few ms so they overlap.
  const calls: string[][] = [];
  for (let i = 0; i < 30; i++) {
    calls.push([[a], [b], [c]][i % 3]!);
    if (i % 4 === 0) calls.push([sorted[0]!, sorted[1]!]);
    if (i % 5 === 0) calls.push(sorted);
    if (i % 7 === 0) calls.push([a, a]);
  }
  await Promise.all(calls.map((u, i) => append(u, i % 2 ? 3 : 0)));
  for (const u of [a, b, c]) {
    const expected = calls.flat().filter((x) => x === u).length;
    expect(await seqsOf(u)).toEqual(Array.from({ length: expected }, (_, k) => k + 1));
    const head = await pool.query<{ seq: string }>('select seq from user_event_heads where user_id = $1', [u]);
    expect(Number(head.rows[0]!.seq)).toBe(expected);
  }
});

it('records nothing for a null user, alone or beside others', async () => {
  const a = await newUser();
  const before = Number((await pool.query('select count(*) from user_events')).rows[0].count);
  await pool.query(`select user_events_append(array[null]::uuid[], array['balance'], array['{}'::jsonb])`);
  await pool.query(`select user_events_append(array[null, $1]::uuid[], array['balance', 'balance'], array['{}'::jsonb, '{}'::jsonb])`, [a]);
  expect(Number((await pool.query('select count(*) from user_events')).rows[0].count)).toBe(before + 1);
  expect(await seqsOf(a)).toEqual([1]);
});
