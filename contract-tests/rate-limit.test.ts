// 429 RATE_LIMITED on every operation that documents it, from a service instance of its own with a limit
// of 3 requests a minute (the limit counts per client address, so one exhausted budget covers them all).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { operations, startContractService, type ContractService } from './harness.ts';
import { frameworkCases, runFrameworkCase, validParts } from './framework-cases.ts';

const LIMIT = 3;
let svc: ContractService;
const limited = operations.filter((op) => op.responses['429']);

beforeAll(async () => {
  svc = await startContractService('ratelimit', { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('rate limit', () => {
  it('the spec documents 429 on some operations', () => {
    expect(limited.length).toBeGreaterThan(0);
  });

  it(`${LIMIT} requests pass, the next is 429 RATE_LIMITED with Retry-After`, async () => {
    // Requests the framework answers without a handler (400), so they pass on with today's service.
    const op = limited.find((o) => frameworkCases(o, svc.operatorToken).some((c) => c.status === 400))!;
    const allowed = frameworkCases(op, svc.operatorToken).find((c) => c.status === 400)!;
    for (let i = 0; i < LIMIT; i++) await runFrameworkCase(svc, op, allowed);
    const limitedAnswer = await svc.call(op.operationId, allowed.raw, { status: 429, code: 'RATE_LIMITED' });
    expect(Number(limitedAnswer.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it.each(limited.map((op) => [op.operationId, op] as const))('%s: 429 RATE_LIMITED with Retry-After', async (_, op) => {
    const { pathParams, query } = validParts(op);
    const checked = await svc.call(op.operationId, { pathParams, query }, { status: 429, code: 'RATE_LIMITED' });
    expect(Number(checked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('operations that do not document 429 are not limited, even with the budget spent', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const response = await fetch(new URL('/v1/contests?limit=abc', svc.baseUrl));
      await response.text();
      expect(response.status).toBe(400);
    }
  });

  it('health, readiness and metrics are not rate limited', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await fetch(new URL(path, svc.baseUrl));
      await response.text();
      expect(response.status, path).toBe(200);
    }
  });
});
