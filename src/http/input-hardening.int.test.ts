// Hostile input against the real service (PostgreSQL + Redis, one process): malformed percent-encoding,
// U+0000 and unpaired surrogates, integers that are not decimal int64, huge failure lists, and bodies
// the service refuses without reading. Each answer is a clear 4xx, never a 500 (issues 15 and 17).
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContest } from '../../generated/openapi/sdk.gen.js';
import type { CreateContestRequest } from '../../generated/openapi/types.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { newUserSession } from '../testing/money.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let base: string;
let OPERATOR: string;
let session: string;

beforeAll(async () => {
  t = await startTestService('input-hardening');
  base = t.svc.baseUrl;
  OPERATOR = t.operatorToken;
  session = (await newUserSession(base, t.privy)).token;
});
afterAll(async () => {
  await t?.stop();
});

async function raw(method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as { code: string; error: string; details: unknown }) : undefined };
}

/** A valid contest; `contest(over)` overrides it with whatever a test sends (hostile values included). */
const validContest = (): CreateContestRequest => ({
  title: 'Hardening',
  category: 'mentions',
  game_type: 'lineups',
  bet_amount_micros: 100_000,
  protocol_prize_pool_micros: 0,
  entry_cap: 10,
  betting_closes_ms: Date.now() + 3_600_000,
  bet_type: { kind: 'num_bets', value: 1 },
  winning_split_bps: [10000],
  markets: [{ category: 'words', name: 'Says "inflation"' }],
});
const contest = (over: Record<string, unknown> = {}) => ({ ...validContest(), ...over });

describe('malformed percent-encoding in a path parameter', () => {
  const C = randomUUID();
  const routes: Array<[string, string, string?]> = [
    ['GET', '/v1/contests/%C3%28'],
    ['GET', '/v1/contests/%C3%28/leaderboard'],
    ['GET', '/v1/contests/%C3%28/top-participants'],
    ['GET', '/v1/contests/%C3%28/popular-entry'],
    ['GET', `/v1/u/%C3%28/contests/${C}`],
    ['GET', '/v1/u/satoshi/contests/%ZZ'],
    ['GET', '/v1/pool-images/%C3%28/raw'],
    ['POST', '/v1/contests/%C3%28/entries', 'session'],
    ['GET', '/v1/users/operations/%E0%A4%A', 'session'],
    ['POST', '/v1/admin/markets/%C3%28/resolve', 'operator'],
    ['POST', '/v1/admin/contests/%C3%28/void', 'operator'],
    ['DELETE', '/v1/admin/market-makers/%C3%28', 'operator'],
    ['POST', '/v1/admin/users/%C3%28/app-token-credits', 'operator'],
  ];
  it.each(routes)('%s %s is 400 VALIDATION_FAILED naming the parameter', async (method, path, who) => {
    const token = who === 'session' ? session : who === 'operator' ? OPERATOR : undefined;
    const r = await raw(method, path, { token, body: method === 'POST' ? {} : undefined });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: expect.arrayContaining([expect.objectContaining({ in: 'path', message: 'is not valid percent-encoded UTF-8' })]),
    });
  });
});

describe('U+0000 and unpaired surrogates in strings', () => {
  it('market-maker name: 400 naming /name', async () => {
    for (const name of ['a\u0000b', 'a\ud800b']) {
      const r = await raw('POST', '/v1/admin/market-makers', {
        token: OPERATOR,
        body: { wallet_address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', name },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ in: 'body', path: '/name', message: expect.stringMatching(/U\+0000|unpaired/) }],
      });
    }
  });

  it('contest title, description and market names: 400 naming each field', async () => {
    const body = contest({ title: 'x\u0000', description: '\udc00', markets: [{ category: 'words', name: 'N\u0000' }] });
    const r = await raw('POST', '/v1/admin/contests', { token: OPERATOR, body });
    expect(r.status).toBe(400);
    expect((r.body!.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['/description', '/markets/0/name', '/title']);
  });

  it('in a path parameter (handle) and in a query value (cursor)', async () => {
    expect((await raw('GET', `/v1/u/ab%00c/contests/${randomUUID()}`)).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ in: 'path', path: '/handle' }],
    });
    expect((await raw('GET', '/v1/contests?cursor=a%00b')).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ in: 'query', path: '/cursor' }],
    });
  });

  it('in the Privy token and the SIWE message', async () => {
    expect((await raw('POST', '/v1/auth/session', { body: { privy_token: 'a\u0000' } })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: '/privy_token' }],
    });
    const sig = `0x${'1'.repeat(130)}`;
    expect((await raw('POST', '/v1/auth/wallet', { body: { message: 'm\u0000', signature: sig } })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: '/message' }],
    });
  });
});

describe('integer path and query parameters: decimal digits within their format', () => {
  const resolve = (id: string) => raw('POST', `/v1/admin/markets/${id}/resolve`, { token: OPERATOR, body: { outcome: 'YES' } });

  it.each(['9223372036854775808', '1e3', '1e300', '0x10', '%205', '5%20', '1.5', '-1', '99999999999999999999999999999999999999999999'])(
    'market_id %s is 400 and the message does not echo the raw text',
    async (id) => {
      const r = await resolve(id);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ in: 'path', path: '/market_id' }] });
      if (!/^-?\d+$/.test(id)) expect(r.body!.error).not.toContain(decodeURIComponent(id));
    },
  );

  it('int64 max and leading zeros reach the handler as the parsed value', async () => {
    const max = await resolve('9223372036854775807');
    expect(max).toMatchObject({ status: 404, body: { code: 'MARKET_NOT_FOUND' } });
    expect(max.body!.error).toContain('9223372036854775807');
    const padded = await resolve('000123');
    expect(padded).toMatchObject({ status: 404, body: { code: 'MARKET_NOT_FOUND' } });
    expect(padded.body!.error).toContain(' 123');
    expect(padded.body!.error).not.toContain('000123');
  });

  it('query integers: no exponent, no hex, within int32 / int64', async () => {
    for (const q of ['limit=1e3', 'limit=0x10', 'limit=99999999999', 'limit=%205']) {
      expect((await raw('GET', `/v1/contests?${q}`)).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ in: 'query', path: '/limit' }],
      });
    }
    const big = await raw('GET', '/v1/markets/lookup?asset=BTC&duration_secs=300&window_start_ms=9223372036854775808');
    expect(big.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ in: 'query', path: '/window_start_ms' }] });
    expect((await raw('GET', '/v1/contests?limit=007')).status).toBe(200);
  });
});

describe('JSON integers in bodies stay within 2^53-1, also where the format is int64', () => {
  it.each([
    ['betting_closes_ms', { betting_closes_ms: 9223372036854775807 }, '/betting_closes_ms'],
    ['live_ends_at_ms', { live_ends_at_ms: 2 ** 63 }, '/live_ends_at_ms'],
    ['1e300', { betting_closes_ms: 1e300 }, '/betting_closes_ms'],
    [
      'market times',
      { markets: [{ category: 'w', name: 'n', betting_closes_at_ms: 2 ** 60, resolution_time_ms: 2 ** 53 }] },
      '/markets/0/betting_closes_at_ms',
    ],
  ])('%s: 400 naming the field', async (_, over, path) => {
    const r = await raw('POST', '/v1/admin/contests', { token: OPERATOR, body: contest(over) });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: expect.arrayContaining([expect.objectContaining({ in: 'body', path })]),
    });
  });

  it('a pick market_id beyond 2^53-1 is 400, not 500', async () => {
    const r = await raw('POST', `/v1/contests/${randomUUID()}/entries`, {
      token: session,
      body: { picks: [{ market_id: 2 ** 63, direction: 'up' }], idempotency_key: randomUUID() },
    });
    expect(r).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([expect.objectContaining({ in: 'body', path: '/picks/0/market_id' })]),
      },
    });
  });
});

describe('400 details are capped', () => {
  it('5,500 unknown keys: the first 20 failures and the count of the rest', async () => {
    const body: Record<string, number> = { amount_micros: 1, idempotency_key: randomUUID() } as never;
    for (let i = 0; i < 5500; i++) body[`k${i}`] = 1;
    const r = await raw('POST', '/v1/users/deposit', { token: session, body });
    expect(r.status).toBe(400);
    const details = r.body!.details as unknown[];
    expect(details).toHaveLength(21);
    expect(details[20]).toEqual({ omitted: 5480 });
    expect(r.text.length).toBeLessThan(4000);
  });

  it('INVALID_PICKS with 100 bad picks: the first 20 and the count of the rest, and a short message', async () => {
    const c = await send(createContest({ client: sdkClient(base, OPERATOR), body: validContest() }));
    expect(c.status).toBe(201);
    const picks = Array.from({ length: 100 }, (_, i) => ({ market_id: 1_000_000 + i, direction: 'up' }));
    const r = await raw('POST', `/v1/contests/${c.data?.contest_id}/entries`, {
      token: session,
      body: { picks, idempotency_key: randomUUID() },
    });
    expect(r).toMatchObject({ status: 422, body: { code: 'INVALID_PICKS' } });
    const details = r.body!.details as unknown[];
    expect(details).toHaveLength(21);
    expect(details[20]).toEqual({ omitted: expect.any(Number) });
    expect(r.body!.error.length).toBeLessThan(1000);
  });
});

describe('a refused request whose body was not read closes the connection', () => {
  /** Sends headers and one chunk of an endless chunked body; resolves with the answer once the server closes. */
  function chunkedProbe(head: string): Promise<{ response: string; closed: boolean }> {
    return new Promise((resolve, reject) => {
      const url = new URL(base);
      const socket = connect(Number(url.port), url.hostname);
      let response = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ response, closed: false });
      }, 3000);
      socket.on('connect', () => {
        socket.write(`${head}Host: ${url.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        socket.write(`10000\r\n${'x'.repeat(0x10000)}\r\n`);
      });
      socket.on('data', (d) => (response += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ response, closed: true });
      });
      socket.on('timeout', reject);
    });
  }

  it.each([
    ['401', 'POST /v1/users/deposit HTTP/1.1\r\n'],
    ['403', `POST /v1/users/deposit HTTP/1.1\r\nAuthorization: Bearer OPERATOR\r\n`],
    ['404', 'POST /v1/nowhere HTTP/1.1\r\n'],
    ['405', 'PUT /v1/contests HTTP/1.1\r\n'],
  ])('%s', async (status, head) => {
    const r = await chunkedProbe(head.replace('OPERATOR', OPERATOR));
    expect(r.response).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(r.response.toLowerCase()).toContain('connection: close');
    expect(r.closed).toBe(true);
  });
});
