// Two lanes serve HTTP (src/http/app.ts): express, and the fast lane for a GET of a URL validated before
// (no Origin, no rate limit). The fast lane must answer exactly what express answers: every public read,
// anonymous and signed in, and the errors on such a URL (a bad token, a wrong kind of token), are requested
// twice; the first goes through express, the second through the fast lane (http_fast_lane_requests_total
// proves it); status, headers (but the request id and date) and body bytes must be equal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserSession } from '../testing/money.js';
import { newContest } from '../testing/contests.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let token: string;
let contestId: string;

beforeAll(async () => {
  t = await startTestService('app-lanes');
  token = (await newUserSession(t.svc.baseUrl, t.privy)).token;
  contestId = (
    await newContest(t.svc.baseUrl, t.operatorToken, { title: 'Lanes contest "quoted" \\ and ü', betting_closes_ms: Date.now() + 600_000 })
  ).id;
  await fastLaneCount(); // /metrics remembered: from now on each read counts itself
});

afterAll(async () => {
  await t?.stop();
});

async function raw(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.svc.baseUrl}${path}`, { headers });
  const hs = Object.fromEntries([...res.headers].filter(([k]) => k !== 'x-request-id' && k !== 'date'));
  return { status: res.status, headers: hs, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

/** The fast lane's counter. /metrics is a GET too: after the first read, each read takes the fast lane and counts itself. */
async function fastLaneCount(): Promise<number> {
  const text = await (await fetch(`${t.svc.baseUrl}/metrics`, { headers: { authorization: `Bearer ${t.operatorToken}` } })).text();
  const m = /^http_fast_lane_requests_total (\d+)/m.exec(text);
  if (!m) throw new Error(`no http_fast_lane_requests_total in /metrics:\n${text.slice(0, 500)}`);
  return Number(m[1]);
}

describe('the fast lane answers exactly what express answers', () => {
  it('for every public read, anonymous and signed in, and for the errors of a bad or wrong-kind token', async () => {
    const paths = [
      '/v1/markets/current?asset=BTC&duration_secs=300',
      '/v1/contests?limit=5',
      `/v1/contests/${contestId}`,
      `/v1/contests/${contestId}/leaderboard?limit=3`,
      `/v1/contests/${contestId}/top-participants`,
      `/v1/contests/${contestId}/popular-entry`,
      '/healthz',
      '/v1/contests/not-a-uuid',
      `/v1/contests/${contestId}?unknown=1`,
    ];
    const callers: Array<[string, Record<string, string>]> = [
      ['anonymous', {}],
      ['signed in', { authorization: `Bearer ${token}` }],
      ['unknown token', { authorization: 'Bearer us_nope' }],
      ['operator token on a user route', { authorization: `Bearer ${t.operatorToken}` }],
      ['not a bearer header', { authorization: 'Basic abc' }],
    ];
    const before = await fastLaneCount();
    let expectedFast = 0;
    for (const path of paths) {
      const first = await raw(path); // remembered by express's lane when valid
      for (const [who, headers] of callers) {
        const a = await raw(path, headers);
        const b = await raw(path, headers);
        expect({ path, who, ...b }).toEqual({ path, who, ...a });
      }
      if (first.status < 400) expectedFast += callers.length * 2;
    }
    // Every request of a valid URL after the first took the fast lane (the bad-token ones too: they fail in
    // authentication, on either lane); invalid URLs never do.
    expect(expectedFast).toBeGreaterThanOrEqual(7 * callers.length * 2); // the seven public reads at least
    expect((await fastLaneCount()) - before - 1).toBe(expectedFast);
  });

  it('a request with an Origin header goes through express (CORS headers), and so does every non-GET', async () => {
    const path = '/v1/contests?limit=2';
    await raw(path);
    const before = await fastLaneCount();
    const withOrigin = await raw(path, { origin: 'https://partner.example' });
    expect(withOrigin.headers['access-control-allow-origin']).toBeDefined();
    expect((await fetch(`${t.svc.baseUrl}${path}`, { method: 'HEAD' })).status).toBeLessThan(500);
    expect((await fastLaneCount()) - before - 1).toBe(0);
  });
});
