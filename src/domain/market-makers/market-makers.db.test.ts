// Medium tier: market makers, their sessions and worker heartbeats on real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { latestHeartbeat, recordHeartbeat } from '../heartbeats.js';
import { db } from '../../db/schema.js';
import { createMarketMakerSession, endedSessionIds, registerMarketMaker, removeMarketMaker } from './market-makers.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('mm');
});
afterAll(async () => t?.close());

const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('market makers repository', () => {
  it('registers once, refuses a second registration in any case, and registers again after removal', async () => {
    const em = () => t.orm.em.fork();
    const r = await registerMarketMaker(em(), WALLET.toLowerCase(), 'Demo');
    expect(r).toMatchObject({ walletAddress: WALLET, name: 'Demo' });
    expect(Math.abs(r.createdAtMs - Date.now())).toBeLessThan(60_000);
    await expect(registerMarketMaker(em(), WALLET, 'Again')).rejects.toMatchObject({ code: 'MARKET_MAKER_EXISTS' });

    const s = await createMarketMakerSession(em(), WALLET.toLowerCase(), 60_000);
    expect(s).toMatchObject({ walletAddress: WALLET });
    expect(s!.expiresAtMs - Date.now()).toBeGreaterThan(50_000);
    const stored = await db(em()).selectFrom('sessions').select('token_hash').where('id', '=', s!.sessionId).executeTakeFirstOrThrow();
    expect(Buffer.from(stored.token_hash)).toHaveLength(32);
    expect(await endedSessionIds(em(), [s!.sessionId])).toEqual(new Set());

    expect(await removeMarketMaker(em(), WALLET.toLowerCase())).toEqual({ walletAddress: WALLET, revokedSessions: 1, withdrawnQuotes: [] });
    expect(await endedSessionIds(em(), [s!.sessionId])).toEqual(new Set([s!.sessionId]));
    expect(await createMarketMakerSession(em(), WALLET, 60_000)).toBeNull();
    await expect(removeMarketMaker(em(), WALLET)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await registerMarketMaker(em(), WALLET, 'Back')).toMatchObject({ name: 'Back' });
  });

  it('counts heartbeats per worker', async () => {
    const me = { workerId: 'w1', startedAt: new Date(Date.now() - 1000) };
    await recordHeartbeat(t.orm.em.fork(), me);
    await recordHeartbeat(t.orm.em.fork(), me, new Date(Date.now() + 5));
    const row = await db(t.orm.em.fork())
      .selectFrom('worker_heartbeats')
      .select(['jobs_processed', 'pid'])
      .where('worker_id', '=', 'w1')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ jobs_processed: '2', pid: process.pid });
    expect((await latestHeartbeat(t.orm.em.fork()))?.workerId).toBe('w1');
  });
});
