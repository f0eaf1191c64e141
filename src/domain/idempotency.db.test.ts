// Medium tier: once() on real PostgreSQL: the claim bounds only its own wait for a concurrent holder of
// the key (lock_timeout is restored before the write runs), and a concurrent duplicate waits for the
// first request's commit and then replays its outcome.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { Unprocessable } from './errors.js';
import { fingerprint, once } from './idempotency.js';
import type { Em } from '../db/orm.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('idem');
});
afterAll(async () => t?.close());

const lockTimeout = async (em: Em) => (await sql<{ v: string }>`select current_setting('lock_timeout') as v`.execute(db(em))).rows[0]!.v;
const scope = () => ({ scope: `user:${randomUUID()}`, operation: 'createRfq', key: randomUUID() });
const stored = (v: string) => ({ status: 201, body: { v }, resourceId: null });

/** Returns once a session of this database waits for a lock (a duplicate blocked on an uncommitted key row). */
async function untilBlocked(): Promise<void> {
  const waiting = async () =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
        db(t.orm.em.fork()),
      )
    ).rows[0]!.n;
  while ((await waiting()) < 1) await new Promise((r) => setTimeout(r, 10));
}

/** A write that says when it runs (`entered`), then waits for `go()` before answering `then()`. */
function heldWrite<T>(then: () => T) {
  let go!: () => void;
  const gone = new Promise<void>((r) => (go = r));
  let enter!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  return {
    entered,
    go,
    write: async () => {
      enter();
      await gone;
      return then();
    },
  };
}

describe('once()', () => {
  it('runs the write with the transaction`s own lock_timeout, not the claim`s bound', async () => {
    const before = await lockTimeout(t.orm.em.fork());
    const r = await once(t.orm.em.fork(), scope(), fingerprint({ a: 1 }), (tx) => lockTimeout(tx), stored);
    expect(r.replayed).toBe(false);
    expect(r.replayed ? null : r.value).toBe(before);
  });

  it('a concurrent duplicate waits for the first commit, then replays its outcome', async () => {
    const s = scope();
    const print = fingerprint({ a: 2 });
    const held = heldWrite(() => 'first');
    const first = once(t.orm.em.fork(), s, print, held.write, stored);
    await held.entered; // the first holds the key's uncommitted row
    let secondWrote = false;
    const second = once(
      t.orm.em.fork(),
      s,
      print,
      async () => {
        secondWrote = true;
        return 'second';
      },
      stored,
    );
    // The second is blocked on the first's key row (seen in pg_stat_activity), then the first commits.
    await untilBlocked();
    held.go();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ replayed: false, value: 'first' });
    expect(b).toMatchObject({ replayed: true, outcome: { status: 201, body: { v: 'first' } } });
    expect(secondWrote).toBe(false);
  });

  it('a domain rejection keeps nothing the write did, stores the rejection, and a retry replays it without writing', async () => {
    const s = scope();
    const print = fingerprint({ a: 3 });
    const marker = randomUUID();
    let writes = 0;
    const rejectingWrite = async (tx: Em) => {
      writes += 1;
      await sql`insert into service_keys (name, key) values (${marker}, decode(repeat('ab', 16), 'hex'))`.execute(db(tx));
      throw new Unprocessable('INSUFFICIENT_BALANCE', 'not enough');
    };
    await expect(once(t.orm.em.fork(), s, print, rejectingWrite, stored)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const kept = await sql`select 1 from service_keys where name = ${marker}`.execute(db(t.orm.em.fork()));
    expect(kept.rows).toHaveLength(0);
    const retry = await once(t.orm.em.fork(), s, print, rejectingWrite, stored);
    expect(retry).toMatchObject({ replayed: true, outcome: { status: 422, body: { code: 'INSUFFICIENT_BALANCE' } } });
    expect(writes).toBe(1);
  });

  it('when a duplicate takes the key between the rejection and its storing, the rejected request answers the duplicate`s outcome', async () => {
    const s = scope();
    const print = fingerprint({ a: 4 });
    const rejected = heldWrite((): string => {
      throw new Unprocessable('INSUFFICIENT_BALANCE', 'not enough (then)');
    });
    const duplicate = heldWrite(() => 'second'); // holds the key while the first tries to store its rejection
    // The first request's second transaction (storing its rejection) starts only once the duplicate holds the
    // key: otherwise, on a loaded machine, it can claim the freed key before the woken duplicate does, and
    // the duplicate then replays the rejection (also exactly once, but not the interleaving tested here).
    const em = t.orm.em.fork();
    let transactions = 0;
    const firstEm = new Proxy(em, {
      get: (target, key, receiver) =>
        key === 'transactional'
          ? async (...args: Parameters<Em['transactional']>) => {
              if (++transactions === 2) await duplicate.entered;
              return target.transactional(...args);
            }
          : Reflect.get(target, key, receiver),
    });
    const first = once(firstEm, s, print, rejected.write, stored);
    await rejected.entered;
    const second = once(t.orm.em.fork(), s, print, duplicate.write, stored);
    await untilBlocked();
    rejected.go(); // the first rolls back; the second, blocked on its key row, claims the key and writes
    await duplicate.entered;
    duplicate.go();
    const [a, b] = await Promise.all([first, second]);
    expect(b).toMatchObject({ replayed: false, value: 'second' });
    expect(a).toMatchObject({ replayed: true, outcome: { status: 201, body: { v: 'second' } } });
  });
});
