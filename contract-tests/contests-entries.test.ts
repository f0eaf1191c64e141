// Contest entries through the generated client, the accepted and the 409s: createContestEntry's 201 (money,
// counts, replays, bets_per_category, the entry cap under concurrency) and every documented 409. The 422s,
// 404, 400/413/415, 401 and 403: contests-entries-refused.test.ts; 429: rate-limit.test.ts; 500/503 pending.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { voidContest } from '../generated/openapi/sdk.gen.ts';
import type { EntryPick } from '../generated/openapi/types.gen.ts';
import { ContractViolation, expectErrorBody } from './harness.ts';
import {
  balances,
  enter,
  expectPot,
  MICRO,
  newContest,
  newUser,
  picksOf,
  resolve,
  useContestService,
  postEntry,
  readContest,
  waitForStatus,
} from './contests-fixtures.ts';

const env = useContestService('contests-entries');

describe('createContestEntry 201', () => {
  it('the bet moves from available to reserved; the contest counts the entry; a replay answers the same 201 with Idempotent-Replayed', async () => {
    const u = await newUser(env, { fund: 5 * MICRO });
    const c = await newContest(env, { max_entries_per_user: 2 });
    expect((await readContest(env, c, u)).caller).toEqual({ joined: false });
    const key = randomUUID();
    const picks = picksOf(c, 'ud');
    const before = Date.now();
    const { data, checked } = await u.api.run(postEntry(u, c, picks, key), { status: 201 });
    expect(data).toEqual({ contest_id: c.contest_id, entry_index: 0, created_at_ms: expect.any(Number), picks });
    expect(data!.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(checked.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u)).toEqual({ available: 4 * MICRO, reserved: MICRO });

    const replay = await u.api.run(postEntry(u, c, picks, key), { status: 201 });
    expect(replay.data).toEqual(data);
    expect(replay.checked.headers.get('idempotent-replayed')).toBe('true');
    expect(await balances(u)).toEqual({ available: 4 * MICRO, reserved: MICRO });

    const after = await readContest(env, c, u);
    expect(after).toMatchObject({ entries_filled: 1, caller: { joined: true }, total_pot_micros: 11 * MICRO });
    expectPot(after);
    expect((await readContest(env, c)).caller).toBeNull();

    // A second entry (max_entries_per_user 2) gets the next index.
    const second = await u.api.run(postEntry(u, c, picksOf(c, 'dd')), { status: 201 });
    expect(second.data!.entry_index).toBe(1);
    expect(await balances(u)).toEqual({ available: 3 * MICRO, reserved: 2 * MICRO });
    expect((await readContest(env, c)).entries_filled).toBe(2);
  });

  it('bets_per_category: exactly value picks in every category', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, {
      bet_type: { kind: 'bets_per_category', value: 1 },
      markets: [
        { category: 'a', name: 'a1' },
        { category: 'a', name: 'a2' },
        { category: 'b', name: 'b1' },
      ],
    });
    const bad = await u.api.run(
      postEntry(
        u,
        c,
        [c.markets[0], c.markets[1]].map((m) => ({ market_id: m!.market_id, direction: 'up' as const })),
      ),
      {
        status: 422,
        code: 'INVALID_PICKS',
      },
    );
    expectErrorBody(bad.checked.body);
    const picks: EntryPick[] = [
      { market_id: c.markets[1]!.market_id, direction: 'up' },
      { market_id: c.markets[2]!.market_id, direction: 'down' },
    ];
    expect((await u.api.run(postEntry(u, c, picks), { status: 201 })).data!.picks).toEqual(picks);
  });

  it('the entry cap holds under concurrency: 6 users race for 2 places', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(env, { fund: MICRO })));
    const c = await newContest(env, { entry_cap: 2 });
    const results = await Promise.all(users.map((u) => postEntry(u, c, picksOf(c, 'uu'))));
    const answers = results.map((r) => {
      if (r.error instanceof ContractViolation) throw r.error;
      return `${r.response!.status} ${(r.error as { code?: string } | undefined)?.code ?? ''}`.trim();
    });
    expect(answers.sort()).toEqual(['201', '201', ...Array(4).fill('409 CONTEST_FULL')]);
    expect((await readContest(env, c)).entries_filled).toBe(2);
    const reserved = await Promise.all(users.map(async (u) => (await balances(u)).reserved));
    expect(reserved.sort()).toEqual([0, 0, 0, 0, MICRO, MICRO]);
  });
});

describe('createContestEntry 409', () => {
  it('BETTING_CLOSED once betting_closes_ms has passed, before any other rule (even on a voided contest)', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, { betting_closes_ms: Date.now() - 1000, entry_cap: 1 });
    const { checked } = await u.api.run(postEntry(u, c, picksOf(c, 'uu')), { status: 409, code: 'BETTING_CLOSED' });
    expectErrorBody(checked.body);
    await u.api.run(postEntry(u, c, [{ market_id: 1, direction: 'up' }]), { status: 409, code: 'BETTING_CLOSED' });
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
    await u.api.run(postEntry(u, c, picksOf(c, 'uu')), { status: 409, code: 'BETTING_CLOSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('ENTRY_NOT_OPEN before entry_opens_at_ms, and on a contest that is voided or resolved', async () => {
    const u = await newUser(env, { fund: MICRO });
    const early = await newContest(env, { entry_opens_at_ms: Date.now() + 30_000 });
    const { checked } = await u.api.run(postEntry(u, early, picksOf(early, 'uu')), { status: 409, code: 'ENTRY_NOT_OPEN' });
    expectErrorBody(checked.body);
    const voided = await newContest(env);
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: voided.contest_id } }), { status: 200 });
    await u.api.run(postEntry(u, voided, picksOf(voided, 'uu')), { status: 409, code: 'ENTRY_NOT_OPEN' });
    const resolved = await newContest(env, { bet_type: { kind: 'num_bets', value: 1 }, markets: [{ category: 'a', name: 'only' }] });
    // An outcome needs the betting closed (resolveMarket 409 BETTING_OPEN before), so a resolved contest
    // refuses entries for that first.
    await resolve(env, resolved.markets[0]!.market_id, 'YES');
    await waitForStatus(env, resolved.contest_id, 'resolved');
    await u.api.run(postEntry(u, resolved, picksOf(resolved, 'u')), { status: 409, code: 'BETTING_CLOSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('CONTEST_FULL when entries_filled reached entry_cap, before the per-user limit and the picks', async () => {
    const [a, b] = await Promise.all([newUser(env, { fund: MICRO }), newUser(env, { fund: MICRO })]);
    const c = await newContest(env, { entry_cap: 1 });
    await enter(a, c, 'uu');
    const { checked } = await b.api.run(postEntry(b, c, picksOf(c, 'uu')), { status: 409, code: 'CONTEST_FULL' });
    expectErrorBody(checked.body);
    await b.api.run(postEntry(b, c, picksOf(c, 'u')), { status: 409, code: 'CONTEST_FULL' });
    await a.api.run(postEntry(a, c, picksOf(c, 'uu')), { status: 409, code: 'CONTEST_FULL' });
    expect(await balances(b)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('ENTRY_LIMIT_REACHED at max_entries_per_user, before the picks and the balance', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, { max_entries_per_user: 1 });
    await enter(u, c, 'uu');
    const { checked } = await u.api.run(postEntry(u, c, picksOf(c, 'dd')), { status: 409, code: 'ENTRY_LIMIT_REACHED' });
    expectErrorBody(checked.body);
    await u.api.run(postEntry(u, c, picksOf(c, 'd')), { status: 409, code: 'ENTRY_LIMIT_REACHED' });
    expect((await readContest(env, c)).entries_filled).toBe(1);
  });

  it('IDEMPOTENCY_KEY_REUSED: the same key with other picks, or for another contest', async () => {
    const u = await newUser(env, { fund: 2 * MICRO });
    const [c1, c2] = await Promise.all([newContest(env, { max_entries_per_user: 2 }), newContest(env)]);
    const key = randomUUID();
    await u.api.run(postEntry(u, c1, picksOf(c1, 'uu'), key), { status: 201 });
    const { checked } = await u.api.run(postEntry(u, c1, picksOf(c1, 'dd'), key), { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expectErrorBody(checked.body);
    await u.api.run(postEntry(u, c2, picksOf(c2, 'uu'), key), { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: MICRO });
    // Keys are scoped per user: another user may use the same key.
    const other = await newUser(env, { fund: MICRO });
    await other.api.run(postEntry(other, c1, picksOf(c1, 'uu'), key), { status: 201 });
  });
});
