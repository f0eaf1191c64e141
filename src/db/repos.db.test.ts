// repos(em) (src/db/repos.ts): one object per unit of work, bound to the em's transaction when one is open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { repos } from './repos.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('repos');
});
afterAll(async () => t?.close());

const beat = (workerId: string) => ({ workerId, hostname: 'h', pid: 1, startedAt: new Date(), lastSeenAt: new Date() });
const seen = async (workerId: string) => (await repos(t.orm.em.fork()).heartbeats.recent(100)).some((r) => r.worker_id === workerId);

describe('repos', () => {
  it('writes in the transaction it is given: a rollback leaves nothing, a commit keeps the row', async () => {
    const rolledBack = new Error('roll back');
    await expect(
      t.orm.em.fork().transactional(async (tx) => {
        await repos(tx).heartbeats.record(beat('repos-rolled-back'));
        expect((await repos(tx).heartbeats.recent(100)).some((r) => r.worker_id === 'repos-rolled-back')).toBe(true);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await seen('repos-rolled-back')).toBe(false);
    await t.orm.em.fork().transactional((tx) => repos(tx).heartbeats.record(beat('repos-committed')));
    expect(await seen('repos-committed')).toBe(true);
  });

  it('gives the same object (and the same repository) for the same em, another for another em', async () => {
    const em = t.orm.em.fork();
    expect(repos(em)).toBe(repos(em));
    expect(repos(em).ledger).toBe(repos(em).ledger);
    expect(repos(em)).not.toBe(repos(t.orm.em.fork()));
    await em.transactional(async (tx) => {
      expect(repos(tx)).toBe(repos(tx));
      expect(repos(tx)).not.toBe(repos(em)); // the fork outside stays on the pool
    });
  });

  it('follows an em whose own transaction opens and closes (begin / rollback): never the binding of before', async () => {
    const em = t.orm.em.fork();
    const outside = repos(em);
    await em.begin();
    const inside = repos(em);
    expect(inside).not.toBe(outside);
    await inside.heartbeats.record(beat('repos-begin'));
    await em.rollback();
    expect(repos(em)).not.toBe(inside);
    expect(await seen('repos-begin')).toBe(false);
  });
});
