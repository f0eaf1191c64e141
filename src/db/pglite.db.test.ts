// Medium tier, embedded: the same repositories on PGlite (the zero-setup deployment), where parameters are
// serialized by PGlite rather than pg: arrays, int8 as text, bytea in and out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { createOrm, migrate, type Orm } from './orm.js';
import { openEmbeddedDatabase } from './pglite.js';
import { db } from './schema.js';
import { post, userBalances } from '../domain/ledger/ledger.js';
import { ledgerStatement } from '../domain/ledger/statement.js';
import { listOperations } from '../domain/money/history.js';
import { getImage, storeImage, encodePng } from '../domain/contests/images.js';
import { ensureWindows } from '../domain/markets/markets.js';
import { createContest } from '../domain/contests/create.js';
import { listContests } from '../domain/contests/lobby.js';
import { loadContest, loadMarkets } from '../domain/contests/records.js';
import { resolveContest, resolveMarket } from '../domain/contests/resolution.js';

let dir: string;
let pglite: PGlite;
let orm: Orm;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crfq-pglite-'));
  pglite = await openEmbeddedDatabase(dir);
  orm = await createOrm({ pglite });
  await migrate(orm);
}, 120_000);
afterAll(async () => {
  await orm?.close(true);
  await pglite?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('repositories on PGlite', () => {
  it('post a ledger transaction (array parameters), read balances (int8 as text), create windows', async () => {
    const userId = randomUUID();
    await db(orm.em.fork())
      .insertInto('users')
      .values({ id: userId, wallet_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })
      .execute();
    await orm.em.fork().transactional((tx) =>
      post(tx, {
        kind: 'deposit',
        reference: 'r',
        entries: [
          { account: { system: 'settlement_clearing' }, amount: -9_007_199_254_740_993n },
          { account: { userId, kind: 'user_available' }, amount: 9_007_199_254_740_993n },
        ],
      }),
    );
    expect(await userBalances(orm.em.fork(), userId)).toEqual({ available: 9_007_199_254_740_993n, reserved: 0n, appToken: 0n });
    // The history's SQL (lateral scans, int8 arrays, microsecond keysets) on PGlite too.
    const page = await ledgerStatement(orm.em.fork(), userId, { limit: 5 });
    expect(page.movements.map((m) => [m.kind, m.change.available, m.after.available])).toEqual([
      ['deposit', 9_007_199_254_740_993n, 9_007_199_254_740_993n],
    ]);
    const ops = [randomUUID(), randomUUID()];
    for (const id of ops)
      await db(orm.em.fork()).insertInto('operations').values({ id, user_id: userId, kind: 'deposit', amount: '5' }).execute();
    const first = await listOperations(orm.em.fork(), userId, { limit: 1 }, { confirmations: null });
    const second = await listOperations(orm.em.fork(), userId, { limit: 1, cursor: first.nextCursor! }, { confirmations: null });
    expect([...first.operations, ...second.operations].map((o) => o.id).sort()).toEqual([...ops].sort());
    expect(second.nextCursor).toBeNull();
    expect(await ensureWindows(orm.em.fork(), [{ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 }])).toBe(1);
    expect(await ensureWindows(orm.em.fork(), [{ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 }])).toBe(0);
  });

  it('stores an image as a bytea parameter and reads the same bytes back', async () => {
    const png = encodePng(8, 8, (x, y) => [x * 30, y * 30, 0]);
    const stored = await storeImage(orm.em.fork(), 'image/png', png);
    const back = await getImage(orm.em.fork(), stored.imageId);
    expect(back?.bytes.equals(png)).toBe(true);
    expect(back?.sha256).toBe(stored.sha256);
  });

  it('creates a contest (integer[] parameter), pages the lobby (row comparison), resolves and voids it', async () => {
    const create = (nowMs: number) =>
      createContest(
        orm.em.fork(),
        {
          title: 'T',
          category: 'culture',
          gameType: 'lineups',
          betAmount: 5n,
          prizePool: 0n,
          entryCap: 3,
          maxEntriesPerUser: 1,
          bettingClosesMs: Date.now() + 60_000,
          betType: { kind: 'num_bets', value: 1 },
          winningSplitBps: [6000, 4000],
          entryVisibility: 'visible',
          markets: [{ category: 'a', name: 'A' }],
        },
        nowMs,
      );
    const older = await create(Date.now() - 1000);
    const id = await create(Date.now());
    expect((await loadContest(orm.em.fork(), id)).winningSplitBps).toEqual([6000, 4000]);
    const first = await listContests(orm.em.fork(), { limit: 1 });
    expect(first.contests[0]?.id).toBe(id);
    const second = await listContests(orm.em.fork(), { limit: 1, cursor: first.nextCursor! });
    expect(second.contests.map((c) => c.id)).toEqual([older]);
    const [m] = await loadMarkets(orm.em.fork(), id);
    expect((await resolveMarket(orm.em.fork(), m!.marketId, 'VOID')).contestReady).toBe(true);
    expect(await resolveContest(orm.em.fork(), id)).toBe('voided');
  });
});
