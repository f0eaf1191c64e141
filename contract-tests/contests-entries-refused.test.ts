// Contest entries through the generated client, the refusals: createContestEntry's 422 (INVALID_PICKS,
// INSUFFICIENT_BALANCE), 404, 400/413/415, 401 and 403; errors.test.ts's framework cases cover the 401
// without a token and the 403 with the operator token too. Every response is checked against the spec.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createContestEntry, createDeposit } from '../generated/openapi/sdk.gen.ts';
import type { EntryPick } from '../generated/openapi/types.gen.ts';
import { expectErrorBody } from './harness.ts';
import { jsonOfSize, JSON_LIMIT_BYTES } from './framework-cases.ts';
import { balances, MICRO, newContest, newUser, picksOf, resolve, useContestService, postEntry, readContest } from './contests-fixtures.ts';

const env = useContestService('contests-entries-refused');

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
      const { checked } = await u.api.run(postEntry(u, c, picks), { status: 422, code: 'INVALID_PICKS' });
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
    const closed = await u.api.run(postEntry(u, closing, picksOf(closing, 'uu')), { status: 422, code: 'INVALID_PICKS' });
    expect((closed.checked.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/picks/0/market_id' }),
    );
    await resolve(env, m3!, 'VOID'); // not OPEN any more (an outcome would need betting closed: BETTING_CLOSED first)
    await u.api.run(
      postEntry(u, c, [
        { market_id: m1!, direction: 'up' },
        { market_id: m3!, direction: 'up' },
      ]),
      { status: 422, code: 'INVALID_PICKS' },
    );
    expect(await balances(u)).toEqual({ available: MICRO, reserved: 0 });
    expect((await readContest(env, c)).entries_filled).toBe(0);
  });

  it('INVALID_PICKS: survivor and streak contests take no entries here', async () => {
    const u = await newUser(env, { fund: MICRO });
    for (const game_type of ['survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type });
      await u.api.run(postEntry(u, c, picksOf(c, 'uu')), { status: 422, code: 'INVALID_PICKS' });
    }
  });

  it('INSUFFICIENT_BALANCE: the available balance does not cover bet_amount_micros; nothing changes; the rejection replays under its key', async () => {
    const u = await newUser(env, { fund: MICRO - 1 });
    const c = await newContest(env);
    const key = randomUUID();
    const { checked } = await u.api.run(postEntry(u, c, picksOf(c, 'uu'), key), { status: 422, code: 'INSUFFICIENT_BALANCE' });
    expectErrorBody(checked.body);
    expect(checked.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u)).toEqual({ available: MICRO - 1, reserved: 0 });
    const after = await readContest(env, c, u);
    expect(after).toMatchObject({ entries_filled: 0, total_pot_micros: 10 * MICRO, caller: { joined: false } });
    // Funded now, but the same key and body replay the first answer; a new key enters.
    await u.api.run(createDeposit({ client: u.api.client, body: { amount_micros: 1, idempotency_key: randomUUID() } }), { status: 200 });
    const replay = await u.api.run(postEntry(u, c, picksOf(c, 'uu'), key), { status: 422, code: 'INSUFFICIENT_BALANCE' });
    expect(replay.checked.body).toEqual(checked.body);
    expect(replay.checked.headers.get('idempotent-replayed')).toBe('true');
    await u.api.run(postEntry(u, c, picksOf(c, 'uu')), { status: 201 });
    expect(await balances(u)).toEqual({ available: 0, reserved: MICRO });
  });
});

describe('createContestEntry 404, 400, 413, 415, 401, 403', () => {
  it('404 CONTEST_NOT_FOUND: no contest has the id', async () => {
    const u = await newUser(env, { fund: MICRO });
    const { checked } = await u.api.run(postEntry(u, randomUUID(), [{ market_id: 1, direction: 'up' }]), {
      status: 404,
      code: 'CONTEST_NOT_FOUND',
    });
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
    expect((sideways.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/picks/0/direction' }),
    );
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
    await u.api.run(postEntry(u, c, picksOf(c, 'uu'), key), { status: 201 });
  });

  it('401 UNAUTHORIZED without a token, INVALID_SESSION with an unknown one; 403 FORBIDDEN with the operator token', async () => {
    const c = await newContest(env);
    const body = { picks: picksOf(c, 'uu'), idempotency_key: randomUUID() };
    await env.anon.run(createContestEntry({ client: env.anon.client, path: { id: c.contest_id }, body }), {
      status: 401,
      code: 'UNAUTHORIZED',
    });
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(createContestEntry({ client: garbage.client, path: { id: c.contest_id }, body }), {
      status: 401,
      code: 'INVALID_SESSION',
    });
    await env.operator.run(createContestEntry({ client: env.operator.client, path: { id: c.contest_id }, body }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    expect((await readContest(env, c)).entries_filled).toBe(0);
  });
});
