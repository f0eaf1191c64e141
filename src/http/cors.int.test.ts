// What a newcomer's browser front-end and curl run into: CORS preflights on every route (permissive
// outside production, a configured list in production), and the operator API when OPERATOR_TOKEN is unset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from './spec.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let dev: TestService;
let prod: TestService;
const PARTNER = 'https://app.partner.test';

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startTestService('corsdev', { OPERATOR_TOKEN: undefined }),
    startTestService('corsprod', {
      NODE_ENV: 'production',
      ALLOW_DEMO_SETTLEMENT: 'true',
      ALLOW_DEMO_PRICES: 'true',
      CORS_ORIGINS: `${PARTNER}, http://localhost:5173`,
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([dev?.stop(), prod?.stop()]);
});

/** Every (method, concrete path) of the spec, path parameters filled with a sample. */
function operations(): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  for (const [path, item] of Object.entries(loadOpenApiDocument().paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      if ((item as Record<string, unknown>)[method]) out.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'sample') });
    }
  }
  return out;
}

const preflight = (base: string, path: string, method: string, origin: string) =>
  fetch(new URL(path, base), {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization,content-type' },
  });

describe('CORS outside production (CORS_ORIGINS unset): any origin', () => {
  it('answers the preflight of every operation of the spec with 204 and the CORS headers', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(30);
    for (const { method, path } of ops) {
      const res = await preflight(dev.svc.baseUrl, path, method, 'http://localhost:5173');
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 204`);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(
        /authorization.*content-type|content-type.*authorization/,
      );
    }
  });

  it('marks actual responses, errors included, and exposes X-Request-Id', async () => {
    const ok = await fetch(new URL('/v1/markets/current?asset=BTC&duration_secs=300', dev.svc.baseUrl), {
      headers: { Origin: 'http://localhost:5173' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    const bad = await fetch(new URL('/v1/contests?limit=abc', dev.svc.baseUrl), { headers: { Origin: 'http://localhost:5173' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('an OPTIONS that is no preflight (no Access-Control-Request-Method) is still 405', async () => {
    const res = await fetch(new URL('/v1/contests', dev.svc.baseUrl), { method: 'OPTIONS' });
    expect(res.status).toBe(405);
  });
});

describe('CORS in production: only CORS_ORIGINS', () => {
  it('a listed origin gets its own origin back; another origin gets no CORS header (the browser refuses)', async () => {
    const listed = await preflight(prod.svc.baseUrl, '/v1/users/deposit', 'POST', PARTNER);
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(listed.headers.get('vary')).toContain('Origin');
    const other = await preflight(prod.svc.baseUrl, '/v1/users/deposit', 'POST', 'https://evil.test');
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const actual = await fetch(new URL('/v1/contests', prod.svc.baseUrl), { headers: { Origin: 'https://evil.test' } });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('operator API with OPERATOR_TOKEN unset', () => {
  it('logs at start-up that it is disabled', async () => {
    await dev.svc.waitForLog(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('operator API disabled: OPERATOR_TOKEN and OPERATOR_TOKENS_FILE are unset'),
      5_000,
    );
    expect(prod.svc.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('operator API disabled'))).toBe(false);
  });

  it('answers 401 naming OPERATOR_TOKEN, for the empty $OPERATOR_TOKEN of the README and for any token', async () => {
    for (const authorization of ['Bearer ', 'Bearer some-token-of-somebody', undefined]) {
      const res = await fetch(new URL('/v1/admin/market-makers', dev.svc.baseUrl), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(authorization === undefined ? {} : { Authorization: authorization }) },
        body: JSON.stringify({ wallet_address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', name: 'Demo MM' }),
      });
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status).toBe(401);
      expect(body.code).toBe('UNAUTHORIZED');
      expect(body.error).toContain('neither OPERATOR_TOKEN nor OPERATOR_TOKENS_FILE is set');
      expect(body.error).not.toMatch(/not of the form|sign in again/);
    }
  });
});
