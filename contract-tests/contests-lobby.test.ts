// Contest reads through the generated client, the lobby and the public routes: every documented status of
// listContests and getContest, and the 404/401/403 of the public contest routes, except 500/503 (pending);
// errors.test.ts's framework cases cover their 400s too. Played contests: contests-lineups.test.ts and
// contests-outcast.test.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  getContest,
  getContestLeaderboard,
  getContestPopularEntry,
  getContestTopParticipants,
  getProfileContest,
  listContests,
  voidContest,
} from '../generated/openapi/sdk.gen.ts';
import type { ContestLobbyRow } from '../generated/openapi/types.gen.ts';
import { expectErrorBody, type ContractClient } from './harness.ts';
import {
  allPages,
  enter,
  expectPot,
  lobbyPage,
  MICRO,
  newContest,
  newUser,
  useContestService,
  type LobbyQuery,
} from './contests-fixtures.ts';

const env = useContestService('contests-lobby');

const lobby = (query: LobbyQuery = {}, api: ContractClient = env.anon) => lobbyPage(api, query);

const newestFirst = (a: ContestLobbyRow, b: ContestLobbyRow) =>
  b.created_at_ms - a.created_at_ms || (a.contest_id < b.contest_id ? 1 : a.contest_id > b.contest_id ? -1 : 0);

describe('listContests', () => {
  it('200: newest first, keyset pages of the default 20, limit clamped to 1..50, every row a lobby row with the pot rule', async () => {
    const categories = ['mentions', 'sports', 'culture'] as const;
    for (let i = 0; i < 55; i += 11) {
      await Promise.all(Array.from({ length: 11 }, (_, j) => newContest(env, { category: categories[(i + j) % 3]! })));
    }
    const all = await allPages(env.anon, {});
    expect(all.length).toBeGreaterThanOrEqual(55);
    expect(new Set(all.map((r) => r.contest_id)).size).toBe(all.length);
    expect([...all].sort(newestFirst)).toEqual(all);
    for (const row of all) {
      expect(row.caller).toBeNull();
      expect(row.image_url).toBe(`/v1/pool-images/default-${row.category}/raw`);
      expectPot(row);
    }
    const first = await lobby();
    expect(first.contests).toHaveLength(20);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.contests).toEqual(all.slice(0, 20));
    const second = await lobby({ cursor: first.next_cursor! });
    expect(second.contests).toEqual(all.slice(20, 40));

    const one = await lobby({ limit: 0 });
    expect(one.contests).toEqual(all.slice(0, 1));
    expect((await lobby({ limit: -7 })).contests).toHaveLength(1);
    const max = await lobby({ limit: 500 });
    expect(max.contests).toEqual(all.slice(0, 50));
    expect(max.next_cursor).not.toBeNull();
    const last = await lobby({ limit: 50, cursor: max.next_cursor! });
    expect(last.contests).toEqual(all.slice(50, 100));
    if (all.length <= 100) expect(last.next_cursor).toBeNull();

    // A contest created after the first page does not shift the next one (the cursor is a position).
    const fresh = await newContest(env);
    expect((await lobby({ cursor: first.next_cursor! })).contests).toEqual(all.slice(20, 40));
    expect((await lobby({ limit: 1 })).contests.map((r) => r.contest_id)).toEqual([fresh.contest_id]);
  });

  it('200: status and category filters, each paged with its own cursor', async () => {
    const voided = await newContest(env, { category: 'culture' });
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: voided.contest_id } }), { status: 200 });
    const sports = await allPages(env.anon, { category: 'sports', limit: 4 });
    expect(sports.length).toBeGreaterThan(4);
    expect(sports.every((r) => r.category === 'sports')).toBe(true);
    const voidedRows = await allPages(env.anon, { status: 'voided' });
    expect(voidedRows.map((r) => r.contest_id)).toContain(voided.contest_id);
    expect(voidedRows.every((r) => r.status === 'voided')).toBe(true);
    const openCulture = await allPages(env.anon, { status: 'open', category: 'culture' });
    expect(openCulture.every((r) => r.status === 'open' && r.category === 'culture')).toBe(true);
    expect(openCulture.map((r) => r.contest_id)).not.toContain(voided.contest_id);
  });

  it('400 INVALID_CURSOR: a cursor not produced by the service, or replayed with other filters', async () => {
    const { checked } = await env.anon.run(listContests({ client: env.anon.client, query: { cursor: 'not.valid!' } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    expectErrorBody(checked.body);
    const forged = Buffer.from(JSON.stringify({ c: Date.now(), i: 'nope' })).toString('base64url');
    await env.anon.run(listContests({ client: env.anon.client, query: { cursor: forged } }), { status: 400, code: 'INVALID_CURSOR' });
    const page = await lobby({ category: 'sports', limit: 1 });
    await env.anon.run(listContests({ client: env.anon.client, query: { category: 'culture', limit: 1, cursor: page.next_cursor! } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    await env.anon.run(listContests({ client: env.anon.client, query: { limit: 1, cursor: page.next_cursor! } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    await env.svc.call('listContests', { query: { limit: '2.5' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });

  it('caller: null without a token, {joined} with a user session; 401 INVALID_SESSION for an unknown token, 403 for the operator token', async () => {
    const [joiner, other] = await Promise.all([newUser(env, { fund: MICRO }), newUser(env)]);
    const c = await newContest(env);
    await enter(joiner, c, 'uu');
    const rowFor = (rows: ContestLobbyRow[]) => rows.find((r) => r.contest_id === c.contest_id)!;
    expect(rowFor((await lobby({ limit: 5 })).contests).caller).toBeNull();
    const mine = await lobby({ limit: 50 }, joiner.api);
    expect(rowFor(mine.contests).caller).toEqual({ joined: true });
    expect(mine.contests.filter((r) => r.contest_id !== c.contest_id).every((r) => r.caller?.joined === false)).toBe(true);
    expect(rowFor((await lobby({ limit: 5 }, other.api)).contests).caller).toEqual({ joined: false });
    expect(rowFor((await lobby({ limit: 5 })).contests)).toMatchObject({ entries_filled: 1, total_pot_micros: 11 * MICRO });

    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    const { checked } = await garbage.run(listContests({ client: garbage.client }), { status: 401, code: 'INVALID_SESSION' });
    expectErrorBody(checked.body);
    await env.operator.run(listContests({ client: env.operator.client }), { status: 403, code: 'FORBIDDEN' });
  });
});

describe('getContest', () => {
  it('200 for every game type, caller null without a token and {joined} with one; 404, 401, 403', async () => {
    const u = await newUser(env);
    const survivor = await newContest(env, { game_type: 'survivor' });
    const { data } = await env.anon.run(getContest({ client: env.anon.client, path: { id: survivor.contest_id } }), { status: 200 });
    expect(data).toEqual(survivor);
    expect((await u.api.run(getContest({ client: u.api.client, path: { id: survivor.contest_id } }), { status: 200 })).data).toEqual({
      ...survivor,
      caller: { joined: false },
    });
    const { checked } = await env.anon.run(getContest({ client: env.anon.client, path: { id: randomUUID() } }), {
      status: 404,
      code: 'CONTEST_NOT_FOUND',
    });
    expectErrorBody(checked.body);
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(getContest({ client: garbage.client, path: { id: survivor.contest_id } }), { status: 401, code: 'INVALID_SESSION' });
    await env.operator.run(getContest({ client: env.operator.client, path: { id: survivor.contest_id } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
  });
});

describe('404s of the public contest routes', () => {
  it('an unknown contest is CONTEST_NOT_FOUND everywhere; survivor and streak contests on the lineups/outcast-only routes', async () => {
    const owner = await newUser(env, { handle: true });
    const unknown = randomUUID();
    const notFound = { status: 404, code: 'CONTEST_NOT_FOUND' };
    for (const { checked } of [
      await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: unknown } }), notFound),
      await env.anon.run(getContestTopParticipants({ client: env.anon.client, path: { id: unknown } }), notFound),
      await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: unknown } }), notFound),
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: owner.handle!, id: unknown } }), notFound),
    ]) {
      expectErrorBody(checked.body);
    }
    for (const game_type of ['survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type });
      await env.anon.run(getContestTopParticipants({ client: env.anon.client, path: { id: c.contest_id } }), notFound);
      await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: c.contest_id } }), notFound);
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: owner.handle!, id: c.contest_id } }), notFound);
    }
  });

  it('getProfileContest 404 USER_NOT_FOUND for an unknown handle; popular entry of a contest without entries: hidden, or all zeros when visible', async () => {
    const c = await newContest(env);
    const { checked } = await env.anon.run(
      getProfileContest({ client: env.anon.client, path: { handle: `nobody_${randomBytes(4).toString('hex')}`, id: c.contest_id } }),
      {
        status: 404,
        code: 'USER_NOT_FOUND',
      },
    );
    expectErrorBody(checked.body);
    const { data } = await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 });
    expect(data).toEqual({ total_entries: 0, entry_visibility: 'hidden_while_betting_open', markets: [] });
    const shown = await newContest(env, { entry_visibility: 'visible' });
    const visible = (
      await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: shown.contest_id } }), { status: 200 })
    ).data;
    expect(visible).toEqual({
      total_entries: 0,
      entry_visibility: 'visible',
      markets: shown.markets.map((m) => ({ market_id: m.market_id, yes_count: 0, no_count: 0 })),
    });
    const lb = (await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(lb).toEqual({ total_entries: 0, entries: [], caller: null });
  });

  it('getContestLeaderboard 401 INVALID_SESSION for an unknown token, 403 FORBIDDEN for the operator token', async () => {
    const c = await newContest(env);
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(getContestLeaderboard({ client: garbage.client, path: { id: c.contest_id } }), {
      status: 401,
      code: 'INVALID_SESSION',
    });
    await env.operator.run(getContestLeaderboard({ client: env.operator.client, path: { id: c.contest_id } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
  });
});
