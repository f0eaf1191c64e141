// The public contest reads are served from a per-process page cache (src/http/page-cache.ts) dropped by
// `contests.changed` on the bus. Two API processes on one database (PostgreSQL + Redis): A (API and workers)
// and B (API only). A write through A shows on A's very next read; on B once the bus message has arrived
// (polled, never timed); caller fields are never shared between callers; the popular-entry reveal is served
// from the first read after betting closes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../testing/service-process.js';
import { startServiceProcess } from '../testing/service-process.js';
import {
  createContestEntry,
  createDeposit,
  getContest,
  getContestLeaderboard,
  getContestPopularEntry,
  listContests,
  resolveMarket,
  updatePreferences,
} from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { newUserSession } from '../testing/money.js';
import { newContest as createContest } from '../testing/contests.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let a: ServiceProcess;
let b: ServiceProcess;

beforeAll(async () => {
  t = await startTestService('contests-cache');
  a = t.svc;
  b = await startServiceProcess({ env: t.env, args: ['--role=api'] });
});

afterAll(async () => {
  await b?.stop();
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lobby = (svc: ServiceProcess, limit: number, token?: string) =>
  send(listContests({ client: sdkClient(svc.baseUrl, token), query: { limit } }));
const contest = (svc: ServiceProcess, id: string, token?: string) =>
  send(getContest({ client: sdkClient(svc.baseUrl, token), path: { id } }));
const leaderboard = (svc: ServiceProcess, id: string, token?: string) =>
  send(getContestLeaderboard({ client: sdkClient(svc.baseUrl, token), path: { id }, query: { limit: 1 } }));
const popularEntry = (svc: ServiceProcess, id: string, token?: string) =>
  send(getContestPopularEntry({ client: sdkClient(svc.baseUrl, token), path: { id } }));
const setHandle = (u: User, handle: string) => send(updatePreferences({ client: sdkClient(a.baseUrl, u.token), body: { handle } }));

interface User {
  token: string;
  userId: string;
}

async function fundedUser(handle = `c_${randomUUID().slice(0, 8)}`): Promise<User> {
  const u = await newUserSession(a.baseUrl, t.privy);
  const d = await send(
    createDeposit({ client: sdkClient(a.baseUrl, u.token), body: { amount_micros: 1_000_000, idempotency_key: randomUUID() } }),
  );
  expect(d.status).toBe(200);
  expect((await setHandle(u, handle)).status).toBe(200);
  return u;
}

/** A contest closing in a minute (src/testing/contests.ts), as its id and market ids. */
const newContest = async (over: Record<string, unknown> = {}) =>
  createContest(a.baseUrl, t.operatorToken, { title: 'Cache contest', betting_closes_ms: Date.now() + 60_000, ...over });

const enter = (u: User, contestId: string, marketId: number, direction: 'up' | 'down' = 'up') =>
  send(
    createContestEntry({
      client: sdkClient(a.baseUrl, u.token),
      path: { id: contestId },
      body: { picks: [{ market_id: marketId, direction }], idempotency_key: randomUUID() },
    }),
  );

/** Every public read of one contest, as the given caller sees it. */
async function reads(svc: ServiceProcess, id: string, token?: string) {
  const [rows, detail, board, popular] = await Promise.all([
    lobby(svc, 50, token),
    contest(svc, id, token),
    leaderboard(svc, id, token),
    popularEntry(svc, id, token),
  ]);
  for (const r of [rows, detail, board, popular]) expect(r.status).toBe(200);
  const row = rows.data!.contests.find((c) => c.contest_id === id);
  return { row, detail: detail.data!, board: board.data!, popular: popular.data! };
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within 20 s; last: ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

describe('contest reads from the page cache', () => {
  it('a write through A shows on A at once and on B once the bus message arrives', async () => {
    const c = await newContest();
    const u = await fundedUser();
    // Both processes have the pages cached (read twice: the second is a hit).
    for (const svc of [a, b, a, b]) expect((await reads(svc, c.id)).detail.entries_filled).toBe(0);

    expect((await enter(u, c.id, c.markets[0]!)).status).toBe(201);
    const onA = await reads(a, c.id);
    expect(onA.row?.entries_filled).toBe(1);
    expect(onA.detail.entries_filled).toBe(1);
    expect(onA.board.total_entries).toBe(1);
    expect(onA.popular.markets[0]).toMatchObject({ market_id: c.markets[0], yes_count: 1 });

    const onB = await until(
      'the entry on B',
      () => reads(b, c.id),
      (r) => r.board.total_entries === 1,
    );
    expect(onB.row?.entries_filled).toBe(1);
    expect(onB.detail.entries_filled).toBe(1);
    expect(onB.popular.markets[0]).toMatchObject({ market_id: c.markets[0], yes_count: 1 });

    // A market voided through A (a YES or NO waits for the betting close): the detail on both shows it.
    expect(
      (
        await send(
          resolveMarket({ client: sdkClient(a.baseUrl, t.operatorToken), path: { market_id: c.markets[0]! }, body: { outcome: 'VOID' } }),
        )
      ).status,
    ).toBe(200);
    expect((await contest(a, c.id)).data?.markets[0]?.status).toBe('VOIDED');
    await until(
      'the resolution on B',
      () => contest(b, c.id),
      (r) => r.data?.markets[0]?.status === 'VOIDED',
    );
  });

  it('a new contest and a new handle show on the next read of the same process', async () => {
    const u = await fundedUser();
    const first = await newContest();
    await reads(a, first.id);
    expect((await enter(u, first.id, first.markets[1]!)).status).toBe(201);
    const second = await newContest({ title: 'Cache contest, the second' });
    expect((await lobby(a, 1)).data?.contests[0]?.contest_id).toBe(second.id);

    expect((await reads(a, first.id)).board.entries[0]?.user_id).toBe(u.userId);
    const handle = `n_${randomUUID().slice(0, 8)}`;
    expect((await setHandle(u, handle)).status).toBe(200);
    expect((await reads(a, first.id)).board.entries[0]?.handle).toBe(handle);
    await until(
      'the handle on B',
      () => leaderboard(b, first.id),
      (r) => r.data?.entries[0]?.handle === handle,
    );
  });

  it("two callers never see each other's caller fields, nor do anonymous readers, on either process", async () => {
    const c = await newContest({ max_entries_per_user: 2 });
    const [one, two] = [await fundedUser(), await fundedUser()];
    expect((await enter(one, c.id, c.markets[0]!)).status).toBe(201);
    expect((await enter(one, c.id, c.markets[1]!)).status).toBe(201);
    for (const svc of [a, b, a, b]) {
      const [r1, r2, anon] = await Promise.all([reads(svc, c.id, one.token), reads(svc, c.id, two.token), reads(svc, c.id)]);
      expect(r1.row?.caller).toEqual({ joined: true });
      expect(r1.detail.caller).toEqual({ joined: true });
      // limit=1: one of the two entries is the top slice, the other the caller's row outside it.
      expect(r1.board.caller?.rows.map((r) => r.user_id)).toEqual([one.userId]);
      expect(r2.row?.caller).toEqual({ joined: false });
      expect(r2.detail.caller).toEqual({ joined: false });
      expect(r2.board.caller).toEqual({ rows: [] });
      expect(anon.row?.caller).toBeNull();
      expect(anon.detail.caller).toBeNull();
      expect(anon.board.caller).toBeNull();
      expect({ ...r1.board, caller: null }).toEqual(anon.board);
    }
    // The second caller enters through A: its own caller fields change on A's next read, on B once the message arrives.
    expect((await enter(two, c.id, c.markets[0]!)).status).toBe(201);
    const now = await reads(a, c.id, two.token);
    expect(now.row?.caller).toEqual({ joined: true });
    expect(now.detail.caller).toEqual({ joined: true });
    // All scores 0: the earliest entry (one's first) is the top slice, two's entry is its caller row.
    expect(now.board.caller?.rows.map((r) => r.user_id)).toEqual([two.userId]);
    await until(
      'the second caller joined on B',
      () => reads(b, c.id, two.token),
      (r) => r.detail.caller?.joined === true && r.row?.caller?.joined === true,
    );
  });

  it('popular entry: the picks of a hidden contest show from the first read after betting closes', async () => {
    const closesAt = Date.now() + 5_000; // room for the set-up on a busy machine
    const c = await newContest({ betting_closes_ms: closesAt, entry_visibility: 'hidden_while_betting_open' });
    const u = await fundedUser();
    expect((await enter(u, c.id, c.markets[1]!, 'down')).status).toBe(201);
    const hidden = { total_entries: 1, entry_visibility: 'hidden_while_betting_open', markets: [] };
    for (const svc of [a, b, a, b]) expect((await popularEntry(svc, c.id)).data).toEqual(hidden);
    expect(Date.now()).toBeLessThan(closesAt); // else the set-up took too long to test anything

    await sleep(closesAt - Date.now() + 5);
    const shown = {
      total_entries: 1,
      entry_visibility: 'visible',
      markets: [
        { market_id: c.markets[0], yes_count: 0, no_count: 0 },
        { market_id: c.markets[1], yes_count: 0, no_count: 1 },
      ],
    };
    for (const svc of [a, b]) expect((await popularEntry(svc, c.id)).data).toEqual(shown);
  });
});
