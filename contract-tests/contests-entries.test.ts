// Contest entries through the generated client: every documented status of createContestEntry except
// 500/503 (pending) and 429 (rate-limit.test.ts); errors.test.ts's framework cases cover the 401 without a
// token and the 403 with the operator token too. Every response is checked against the spec.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContestEntry, createDeposit, getContest, voidContest } from '../generated/openapi/sdk.gen.ts';
import type { ContestById, EntryPick } from '../generated/openapi/types.gen.ts';
import { ContractViolation, expectErrorBody } from './harness.ts';
import { jsonOfSize, JSON_LIMIT_BYTES } from './framework-cases.ts';
import {
  balances,
  enter,
  expectPot,
  MICRO,
  newContest,
  newUser,
  picksOf,
  resolve,
  startContestService,
  waitForStatus,
  type Env,
  type User,
} from './contests-fixtures.ts';

let env: Env;

beforeAll(async () => {
  env = await startContestService('contests-entries');
});
afterAll(async () => {
  if (env) expect(await env.svc.stop()).toBe(0);
});

const post = (u: User, c: ContestById | string, picks: EntryPick[], key = randomUUID()) =>
  createContestEntry({ client: u.api.client, path: { id: typeof c === 'string' ? c : c.contest_id }, body: { picks, idempotency_key: key } });

async function read(c: ContestById, u?: User): Promise<ContestById> {
  const api = u?.api ?? env.svc.client();
  return (await api.run(getContest({ client: api.client, path: { id: c.contest_id } }), { status: 200 })).data!;
}

describe('createContestEntry 201', () => {
  it('the bet moves from available to reserved; the contest counts the entry; a replay answers the same 201 with Idempotent-Replayed', async () => {
    const u = await newUser(env, { fund: 5 * MICRO });
    const c = await newContest(env, { max_entries_per_user: 2 });
    expect((await read(c, u)).caller).toEqual({ joined: false });
    const key = randomUUID();
    const picks = picksOf(c, 'ud');
    const before = Date.now();
    const { data, checked } = await u.api.run(post(u, c, picks, key), { status: 201 });
    expect(data).toEqual({ contest_id: c.contest_id, entry_index: 0, created_at_ms: expect.any(Number), picks });
    expect(data!.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(checked.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u)).toEqual({ available: 4 * MICRO, reserved: MICRO });

    const replay = await u.api.run(post(u, c, picks, key), { status: 201 });
    expect(replay.data).toEqual(data);
    expect(replay.checked.headers.get('idempotent-replayed')).toBe('true');
    expect(await balances(u)).toEqual({ available: 4 * MICRO, reserved: MICRO });

    const after = await read(c, u);
    expect(after).toMatchObject({ entries_filled: 1, caller: { joined: true }, total_pot_micros: 11 * MICRO });
    expectPot(after);
    expect((await read(c)).caller).toBeNull();

    // A second entry (max_entries_per_user 2) gets the next index.
    const second = await u.api.run(post(u, c, picksOf(c, 'dd')), { status: 201 });
    expect(second.data!.entry_index).toBe(1);
    expect(await balances(u)).toEqual({ available: 3 * MICRO, reserved: 2 * MICRO });
    expect((await read(c)).entries_filled).toBe(2);
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
      post(
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
    expect((await u.api.run(post(u, c, picks), { status: 201 })).data!.picks).toEqual(picks);
  });

  it('the entry cap holds under concurrency: 6 users race for 2 places', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(env, { fund: MICRO })));
    const c = await newContest(env, { entry_cap: 2 });
    const results = await Promise.all(users.map((u) => post(u, c, picksOf(c, 'uu'))));
    const answers = results.map((r) => {
      if (r.error instanceof ContractViolation) throw r.error;
      return `${r.response!.status} ${(r.error as { code?: string } | undefined)?.code ?? ''}`.trim();
    });
    expect(answers.sort()).toEqual(['201', '201', ...Array(4).fill('409 CONTEST_FULL')]);
    expect((await read(c)).entries_filled).toBe(2);
    const reserved = await Promise.all(users.map(async (u) => (await balances(u)).reserved));
    expect(reserved.sort()).toEqual([0, 0, 0, 0, MICRO, MICRO]);
  });
});

describe('createContestEntry 409', () => {
  it('BETTING_CLOSED once betting_closes_ms has passed, before any other rule (even on a voided contest)', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, { betting_closes_ms: Date.now() - 1000, entry_cap: 1 });
    const { checked } = await u.api.run(post(u, c, picksOf(c, 'uu')), { status: 409, code: 'BETTING_CLOSED' });
    expectErrorBody(checked.body);
    await u.api.run(post(u, c, [{ market_id: 1, direction: 'up' }]), { status: 409, code: 'BETTING_CLOSED' });
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
    await u.api.run(post(u, c, picksOf(c, 'uu')), { status: 409, code: 'BETTING_CLOSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('ENTRY_NOT_OPEN before entry_opens_at_ms, and on a contest that is voided or resolved', async () => {
    const u = await newUser(env, { fund: MICRO });
    const early = await newContest(env, { entry_opens_at_ms: Date.now() + 30_000 });
    const { checked } = await u.api.run(post(u, early, picksOf(early, 'uu')), { status: 409, code: 'ENTRY_NOT_OPEN' });
    expectErrorBody(checked.body);
    const voided = await newContest(env);
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: voided.contest_id } }), { status: 200 });
    await u.api.run(post(u, voided, picksOf(voided, 'uu')), { status: 409, code: 'ENTRY_NOT_OPEN' });
    const resolved = await newContest(env, { bet_type: { kind: 'num_bets', value: 1 }, markets: [{ category: 'a', name: 'only' }] });
    // An outcome needs the betting closed (resolveMarket 409 BETTING_OPEN before), so a resolved contest
    // refuses entries for that first.
    await resolve(env, resolved.markets[0]!.market_id, 'YES');
    await waitForStatus(env, resolved.contest_id, 'resolved');
    await u.api.run(post(u, resolved, picksOf(resolved, 'u')), { status: 409, code: 'BETTING_CLOSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('CONTEST_FULL when entries_filled reached entry_cap, before the per-user limit and the picks', async () => {
    const [a, b] = await Promise.all([newUser(env, { fund: MICRO }), newUser(env, { fund: MICRO })]);
    const c = await newContest(env, { entry_cap: 1 });
    await enter(a, c, 'uu');
    const { checked } = await b.api.run(post(b, c, picksOf(c, 'uu')), { status: 409, code: 'CONTEST_FULL' });
    expectErrorBody(checked.body);
    await b.api.run(post(b, c, picksOf(c, 'u')), { status: 409, code: 'CONTEST_FULL' });
    await a.api.run(post(a, c, picksOf(c, 'uu')), { status: 409, code: 'CONTEST_FULL' });
    expect(await balances(b)).toEqual({ available: MICRO, reserved: 0 });
  });

  it('ENTRY_LIMIT_REACHED at max_entries_per_user, before the picks and the balance', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, { max_entries_per_user: 1 });
    await enter(u, c, 'uu');
    const { checked } = await u.api.run(post(u, c, picksOf(c, 'dd')), { status: 409, code: 'ENTRY_LIMIT_REACHED' });
    expectErrorBody(checked.body);
    await u.api.run(post(u, c, picksOf(c, 'd')), { status: 409, code: 'ENTRY_LIMIT_REACHED' });
    expect((await read(c)).entries_filled).toBe(1);
  });

  it('IDEMPOTENCY_KEY_REUSED: the same key with other picks, or for another contest', async () => {
    const u = await newUser(env, { fund: 2 * MICRO });
    const [c1, c2] = await Promise.all([newContest(env, { max_entries_per_user: 2 }), newContest(env)]);
    const key = randomUUID();
    await u.api.run(post(u, c1, picksOf(c1, 'uu'), key), { status: 201 });
    const { checked } = await u.api.run(post(u, c1, picksOf(c1, 'dd'), key), { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expectErrorBody(checked.body);
    await u.api.run(post(u, c2, picksOf(c2, 'uu'), key), { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await balances(u)).toEqual({ available: MICRO, reserved: MICRO });
    // Keys are scoped per user: another user may use the same key.
    const other = await newUser(env, { fund: MICRO });
    await other.api.run(post(other, c1, picksOf(c1, 'uu'), key), { status: 201 });
  });
});

describe('createContestEntry 422', () => {
  it('INVALID_PICKS: wrong count, a market twice, a market of another contest, a market not OPEN; nothing is reserved', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env, {
      markets: [
        { category: 'a', name: 'one' },
        { category: 'a', name: 'two' },
        { category: 'a', name: 'three' },
      ],
    });
    const other = await newContest(env);
    const [m1, m2, m3] = c.markets.map((m) => m.market_id);
    const cases: EntryPick[][] = [
      [{ market_id: m1!, direction: 'up' }],
      [
        { market_id: m1!, direction: 'up' },
        { market_id: m2!, direction: 'up' },
        { market_id: m3!, direction: 'up' },
      ],
      [
        { market_id: m1!, direction: 'up' },
        { market_id: m1!, direction: 'down' },
      ],
      [
        { market_id: m1!, direction: 'up' },
        { market_id: other.markets[0]!.market_id, direction: 'up' },
      ],
    ];
    for (const picks of cases) {
      const { checked } = await u.api.run(post(u, c, picks), { status: 422, code: 'INVALID_PICKS' });
      expectErrorBody(checked.body);
      expect((checked.body as { details: unknown[] }).details).toContainEqual(expect.objectContaining({ in: 'body' }));
    }
    // A market whose own betting_closes_at_ms has passed, although still OPEN.
    const closing = await newContest(env, {
      markets: [
        { category: 'a', name: 'closed', betting_closes_at_ms: Date.now() - 1 },
        { category: 'a', name: 'open' },
      ],
    });
    const closed = await u.api.run(post(u, closing, picksOf(closing, 'uu')), { status: 422, code: 'INVALID_PICKS' });
    expect((closed.checked.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/picks/0/market_id' }),
    );
    await resolve(env, m3!, 'VOID'); // not OPEN any more (an outcome would need betting closed: BETTING_CLOSED first)
    await u.api.run(
      post(u, c, [
        { market_id: m1!, direction: 'up' },
        { market_id: m3!, direction: 'up' },
      ]),
      { status: 422, code: 'INVALID_PICKS' },
    );
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
    expect((await read(c)).entries_filled).toBe(0);
  });

  it('INVALID_PICKS: survivor and streak contests take no entries here', async () => {
    const u = await newUser(env, { fund: MICRO });
    for (const game_type of ['survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type });
      await u.api.run(post(u, c, picksOf(c, 'uu')), { status: 422, code: 'INVALID_PICKS' });
    }
  });

  it('INSUFFICIENT_BALANCE: the available balance does not cover bet_amount_micros; nothing changes; the rejection replays under its key', async () => {
    const u = await newUser(env, { fund: MICRO - 1 });
    const c = await newContest(env);
    const key = randomUUID();
    const { checked } = await u.api.run(post(u, c, picksOf(c, 'uu'), key), { status: 422, code: 'INSUFFICIENT_BALANCE' });
    expectErrorBody(checked.body);
    expect(checked.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u)).toEqual({ available: MICRO - 1, reserved: 0 });
    const after = await read(c, u);
    expect(after).toMatchObject({ entries_filled: 0, total_pot_micros: 10 * MICRO, caller: { joined: false } });
    // Funded now, but the same key and body replay the first answer; a new key enters.
    await u.api.run(createDeposit({ client: u.api.client, body: { amount_micros: 1, idempotency_key: randomUUID() } }), { status: 200 });
    const replay = await u.api.run(post(u, c, picksOf(c, 'uu'), key), { status: 422, code: 'INSUFFICIENT_BALANCE' });
    expect(replay.checked.body).toEqual(checked.body);
    expect(replay.checked.headers.get('idempotent-replayed')).toBe('true');
    await u.api.run(post(u, c, picksOf(c, 'uu')), { status: 201 });
    expect(await balances(u)).toEqual({ available: 0, reserved: MICRO });
  });
});

describe('createContestEntry 404, 400, 413, 415, 401, 403', () => {
  it('404 CONTEST_NOT_FOUND: no contest has the id', async () => {
    const u = await newUser(env, { fund: MICRO });
    const { checked } = await u.api.run(post(u, randomUUID(), [{ market_id: 1, direction: 'up' }]), { status: 404, code: 'CONTEST_NOT_FOUND' });
    expectErrorBody(checked.body);
  });

  it('400 VALIDATION_FAILED, 413 and 415 for a signed-in user', async () => {
    const u = await newUser(env, { fund: MICRO });
    const c = await newContest(env);
    const token = u.token;
    const pathParams = { id: c.contest_id };
    const key = randomUUID();
    const empty = await env.svc.call(
      'createContestEntry',
      { token, pathParams, body: { picks: [], idempotency_key: key } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expect((empty.body as { details: unknown[] }).details).toContainEqual(expect.objectContaining({ in: 'body', path: '/picks' }));
    const sideways = await env.svc.call(
      'createContestEntry',
      { token, pathParams, body: { picks: [{ market_id: c.markets[0]!.market_id, direction: 'sideways' }], idempotency_key: key } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expect((sideways.body as { details: unknown[] }).details).toContainEqual(expect.objectContaining({ in: 'body', path: '/picks/0/direction' }));
    await env.svc.call(
      'createContestEntry',
      { token, pathParams, body: { picks: picksOf(c, 'uu'), idempotency_key: 'not-a-uuid' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await env.svc.call(
      'createContestEntry',
      { token, pathParams: { id: 'not-a-uuid' }, body: { picks: picksOf(c, 'uu'), idempotency_key: key } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await env.svc.call(
      'createContestEntry',
      { token, pathParams, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await env.svc.call(
      'createContestEntry',
      { token, pathParams, rawBody: JSON.stringify({ picks: picksOf(c, 'uu'), idempotency_key: key }), contentType: 'text/plain' },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    );
    // A request rejected by validation is not stored: the key still works.
    await u.api.run(post(u, c, picksOf(c, 'uu'), key), { status: 201 });
  });

  it('401 UNAUTHORIZED without a token, INVALID_SESSION with an unknown one; 403 FORBIDDEN with the operator token', async () => {
    const c = await newContest(env);
    const body = { picks: picksOf(c, 'uu'), idempotency_key: randomUUID() };
    const anon = env.svc.client();
    await anon.run(createContestEntry({ client: anon.client, path: { id: c.contest_id }, body }), { status: 401, code: 'UNAUTHORIZED' });
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(createContestEntry({ client: garbage.client, path: { id: c.contest_id }, body }), { status: 401, code: 'INVALID_SESSION' });
    await env.operator.run(createContestEntry({ client: env.operator.client, path: { id: c.contest_id }, body }), { status: 403, code: 'FORBIDDEN' });
    expect((await read(c)).entries_filled).toBe(0);
  });
});
