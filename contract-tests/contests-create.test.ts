// The operator's createContest through the generated client: every documented status except 500/503
// (pending); errors.test.ts's framework cases also cover its 401 and body 400/413/415 with the operator token.
// Resolving and voiding: contests-settle.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createContest, getContest, getPoolImageRaw, uploadPoolImage } from '../generated/openapi/sdk.gen.ts';
import { encodePng } from '../src/domain/contests/images.js';
import { expectErrorBody } from './harness.ts';
import { contestBody, MICRO, newContest, newUser, useContestService } from './contests-fixtures.ts';

const env = useContestService('contests-create');

describe('createContest', () => {
  it('201: the created contest echoes the request, defaults filled in, markets OPEN with ids, pot = prize pool', async () => {
    const body = contestBody({
      description: 'Pick the words.',
      entry_opens_at_ms: Date.now() - 1000,
      live_ends_at_ms: Date.now() + 120_000,
      markets: [
        {
          category: 'words',
          name: 'Says "inflation"',
          description: 'YES at 10+ mentions.',
          source_kind: 'kalshi',
          source_event_id: 'EV-1',
          source_market_id: 'MK-1',
          betting_closes_at_ms: Date.now() + 60_000,
          live_ends_at_ms: Date.now() + 90_000,
          resolution_time_ms: Date.now() + 100_000,
        },
        { category: 'words', name: 'Says "recession"' },
      ],
    });
    const before = Date.now();
    const { data: c } = await env.operator.run(createContest({ client: env.operator.client, body }), { status: 201 });
    expect(c).toMatchObject({
      title: body.title,
      category: 'mentions',
      game_type: 'lineups',
      status: 'open',
      description: 'Pick the words.',
      bet_amount_micros: MICRO,
      protocol_prize_pool_micros: 10 * MICRO,
      total_pot_micros: 10 * MICRO,
      entries_filled: 0,
      entry_cap: 100,
      max_entries_per_user: 1,
      entry_visibility: 'hidden_while_betting_open',
      entry_opens_at_ms: body.entry_opens_at_ms,
      betting_closes_ms: body.betting_closes_ms,
      live_ends_at_ms: body.live_ends_at_ms,
      resolved_at_ms: null,
      caller: null,
      bet_type: { kind: 'num_bets', value: 2 },
      winning_split_bps: [6000, 3000, 1000],
      image_url: '/v1/pool-images/default-mentions/raw',
    });
    expect(c!.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(c!.created_at_ms).toBeLessThanOrEqual(Date.now() + 1000);
    expect(c!.markets).toHaveLength(2);
    const [m1, m2] = c!.markets;
    expect(m1).toMatchObject({ ...body.markets[0], status: 'OPEN', outcome: null });
    expect(m2).toEqual({
      market_id: m2!.market_id,
      category: 'words',
      name: 'Says "recession"',
      description: null,
      status: 'OPEN',
      outcome: null,
      source_kind: null,
      source_event_id: null,
      source_market_id: null,
      betting_closes_at_ms: null,
      live_ends_at_ms: null,
      resolution_time_ms: null,
    });
    expect(m1!.market_id).not.toBe(m2!.market_id);
    // The same contest through the public read.
    const { data: read } = await env.anon.run(getContest({ client: env.anon.client, path: { id: c!.contest_id } }), { status: 200 });
    expect(read).toEqual(c);
  });

  it('201: image_url is the category default without image_id (and it serves), the uploaded image with one', async () => {
    for (const category of ['mentions', 'sports', 'culture'] as const) {
      const c = await newContest(env, { category });
      expect(c.image_url).toBe(`/v1/pool-images/default-${category}/raw`);
      const { checked } = await env.anon.run(getPoolImageRaw({ client: env.anon.client, path: { image_id: `default-${category}` } }), {
        status: 200,
      });
      expect(checked.headers.get('content-type')).toMatch(/^image\//);
    }
    const png = encodePng(2, 2, () => [10, 20, 30]);
    const { data: image } = await env.operator.run(
      uploadPoolImage({
        client: env.operator.client,
        body: new Blob([new Uint8Array(png)], { type: 'image/png' }),
        headers: { 'Content-Type': 'image/png' },
      }),
      { status: 201 },
    );
    const c = await newContest(env, { image_id: image!.image_id });
    expect(c.image_url).toBe(`/v1/pool-images/${image!.image_id}/raw`);
    expect(c.image_url).toBe(image!.url);
    // The image id in another letter case still names the image, and the contest's image_url still serves it.
    const upper = await newContest(env, { image_id: image!.image_id.toUpperCase(), category: 'sports' });
    const served = upper.image_url.match(/^\/v1\/pool-images\/([^/]+)\/raw$/)![1]!;
    const { checked } = await env.anon.run(getPoolImageRaw({ client: env.anon.client, path: { image_id: served } }), { status: 200 });
    expect(Buffer.from(checked.text, 'latin1').length).toBeGreaterThan(0);
  });

  it('201: every game type, the visibility and per-user limit as given', async () => {
    for (const game_type of ['lineups', 'outcast', 'survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type, entry_visibility: 'visible', max_entries_per_user: 3 });
      expect(c).toMatchObject({
        game_type,
        entry_visibility: 'visible',
        max_entries_per_user: 3,
        entry_opens_at_ms: null,
        live_ends_at_ms: null,
        description: null,
      });
    }
  });

  it('404 IMAGE_NOT_FOUND: an image_id that names no image', async () => {
    const { checked } = await env.operator.run(
      createContest({ client: env.operator.client, body: contestBody({ image_id: randomUUID() }) }),
      {
        status: 404,
        code: 'IMAGE_NOT_FOUND',
      },
    );
    expectErrorBody(checked.body);
  });

  it('400 VALIDATION_FAILED: the rules beyond the schema, every failure in details', async () => {
    const closes = Date.now() + 60_000;
    const { checked } = await env.operator.run(
      createContest({
        client: env.operator.client,
        body: contestBody({
          betting_closes_ms: closes,
          winning_split_bps: [6000, 5000],
          entry_opens_at_ms: closes,
          live_ends_at_ms: closes - 1,
        }),
      }),
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    const details = (checked.body as { details: unknown[] }).details;
    for (const path of ['/winning_split_bps', '/entry_opens_at_ms', '/live_ends_at_ms'])
      expect(details).toContainEqual(expect.objectContaining({ in: 'body', path }));
    await env.operator.run(
      createContest({ client: env.operator.client, body: contestBody({ markets: [{ category: 'words', name: 'only one' }] }) }),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
      },
    );
    const perCategory = await env.operator.run(
      createContest({
        client: env.operator.client,
        body: contestBody({
          bet_type: { kind: 'bets_per_category', value: 2 },
          markets: [
            { category: 'a', name: 'a1' },
            { category: 'a', name: 'a2' },
            { category: 'b', name: 'b1' },
          ],
        }),
      }),
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expect((perCategory.checked.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/bet_type/value' }),
    );
    // The largest pot must stay a safe JSON integer.
    await env.operator.run(
      createContest({ client: env.operator.client, body: contestBody({ bet_amount_micros: 2 ** 52, entry_cap: 2 }) }),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
      },
    );
    await env.svc.call(
      'createContest',
      { token: env.svc.operatorToken, body: { ...contestBody(), bet_amount_micros: 0 } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
  });

  it('403 FORBIDDEN with a user session', async () => {
    const u = await newUser(env);
    const { checked } = await u.api.run(createContest({ client: u.api.client, body: contestBody() }), { status: 403, code: 'FORBIDDEN' });
    expectErrorBody(checked.body);
  });
});
