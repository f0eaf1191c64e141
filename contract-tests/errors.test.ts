// Framework-level answers of every operation in the spec (validation, authentication, body size and
// media type), plus the answers of no operation: unknown routes, wrong methods, request ids.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  checkErrorResponse,
  expectErrorBody,
  newOperatorToken,
  operations,
  startContractService,
  type ContractService,
} from './harness.ts';
import { frameworkCases, jsonOfSize, JSON_LIMIT_BYTES, reachingToken, runFrameworkCase, validParts } from './framework-cases.ts';

// The cases are derived from the spec at collection time, so the operator token is chosen before the service starts.
const operatorToken = newOperatorToken();
let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('errors', { operatorToken });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('framework-level answers of every operation', () => {
  for (const op of operations) {
    const cases = frameworkCases(op, operatorToken);
    if (!cases.length) continue;
    describe(`${op.operationId} (${op.method} ${op.path})`, () => {
      for (const c of cases) {
        it(`${c.status} ${c.code}: ${c.title}`, async () => {
          await runFrameworkCase(svc, op, c);
        });
      }
    });
  }
});

describe('malformed JSON is 400 VALIDATION_FAILED', () => {
  const reachable = operations.filter((op) => op.requestBody?.content['application/json'] && reachingToken(op, operatorToken) !== null);
  for (const op of reachable) {
    it(`${op.operationId} (${op.method} ${op.path})`, async () => {
      const { pathParams, query } = validParts(op);
      const token = reachingToken(op, operatorToken) ?? undefined;
      const checked = await svc.call(
        op.operationId,
        { pathParams, query, token, rawBody: '{"truncated": ', contentType: 'application/json' },
        { status: 400, code: 'VALIDATION_FAILED' },
      );
      expectErrorBody(checked.body);
    });
  }
});

describe('JSON body size limit', () => {
  it('exactly 64 KiB is read and validated; one byte more is 413 with the limit in details', async () => {
    const exact = await svc.call(
      'createSession',
      { rawBody: jsonOfSize(JSON_LIMIT_BYTES, 'unexpected_property'), contentType: 'application/json' },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expect((exact.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/unexpected_property' }),
    );
    const over = await svc.call(
      'createSession',
      { rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    expect(over.body).toMatchObject({ details: { limit_bytes: JSON_LIMIT_BYTES } });
  });
});

describe('routes and methods the spec does not have', () => {
  it.each(['/v1/does-not-exist', '/v1/contests/', '/'])('GET %s is 404 NOT_FOUND with the error body', async (path) => {
    const response = await fetch(new URL(path, svc.baseUrl));
    expectErrorBody(checkErrorResponse(response, await response.text(), { status: 404, code: 'NOT_FOUND' }));
  });

  const paths = [...new Set(operations.map((op) => op.path))];
  it.each(paths)('%s: an undocumented method is 405 METHOD_NOT_ALLOWED, Allow lists the documented ones', async (path) => {
    const documented = operations.filter((op) => op.path === path).map((op) => op.method);
    const method = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !documented.includes(m))!;
    const response = await fetch(new URL(path.replace(/\{[^}]+\}/g, '1'), svc.baseUrl), { method });
    expectErrorBody(checkErrorResponse(response, await response.text(), { status: 405, code: 'METHOD_NOT_ALLOWED' }));
    const allow = (response.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    expect(allow.sort()).toEqual(documented.sort());
  });
});

describe('X-Request-Id', () => {
  it('is echoed when the client sends one', async () => {
    const response = await fetch(new URL('/v1/does-not-exist', svc.baseUrl), { headers: { 'x-request-id': 'contract-test-42' } });
    await response.text();
    expect(response.headers.get('x-request-id')).toBe('contract-test-42');
  });

  it('is generated, different for each request, when the client sends none', async () => {
    const ids: Array<string | null> = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(new URL('/v1/does-not-exist', svc.baseUrl));
      await response.text();
      ids.push(response.headers.get('x-request-id'));
    }
    expect(ids[0]).toMatch(/\S/);
    expect(ids[1]).toMatch(/\S/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
