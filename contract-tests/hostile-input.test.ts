// Hostile input on every operation it can reach (anonymous and operator routes), each answer checked
// against the spec: malformed percent-encoding in each path parameter, U+0000 in each string of the
// documented request example, and a failure list longer than the `details` cap. Random hostile input
// on every operation and credential is fuzz.test.ts; these are the deterministic cases.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { newOperatorToken, operations, startContractService, type ContractService } from './harness.ts';
import { reachingToken, validParts } from './framework-cases.ts';
import type { SpecOperation } from './spec.ts';

const operatorToken = newOperatorToken();
let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('hostile', { operatorToken, env: { RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

const reachable = operations.filter((op) => reachingToken(op, operatorToken) !== null && op.responses['400']);
const tokenFor = (op: SpecOperation) => reachingToken(op, operatorToken) ?? undefined;

/** The operation's path with valid values, one parameter replaced by a raw (unencoded) segment. */
function pathWith(op: SpecOperation, name: string, raw: string): string {
  const { pathParams } = validParts(op);
  return op.path.replace(/\{([^}]+)\}/g, (_, n: string) => (n === name ? raw : encodeURIComponent(String(pathParams[n]))));
}

/** Every (JSON pointer, copy with a NUL in that string) of a JSON value. */
function withNul(value: unknown, pointer = ''): Array<[string, unknown]> {
  if (typeof value === 'string') return [[pointer, `${value}\u0000`]];
  if (Array.isArray(value))
    return value.flatMap((v, i) =>
      withNul(v, `${pointer}/${i}`).map(([p, x]) => [p, value.map((y, j) => (j === i ? x : y))] as [string, unknown]),
    );
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      withNul(v, `${pointer}/${k}`).map(([p, x]) => [p, { ...value, [k]: x }] as [string, unknown]),
    );
  }
  return [];
}

describe('malformed percent-encoding in a path parameter is 400 VALIDATION_FAILED', () => {
  for (const op of reachable) {
    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      it(`${op.operationId} {${p.name}}`, async () => {
        const { query, json, binary } = validParts(op);
        const checked = await svc.call(
          op.operationId,
          {
            path: pathWith(op, p.name, '%C3%28'),
            query,
            token: tokenFor(op),
            body: json,
            rawBody: binary?.bytes,
            contentType: binary?.contentType,
          },
          { status: 400, code: 'VALIDATION_FAILED' },
        );
        expect(checked.body).toMatchObject({
          details: [{ in: 'path', path: `/${p.name}`, message: 'is not valid percent-encoded UTF-8' }],
        });
      });
    }
  }
});

describe('U+0000 in any string of a JSON body is 400 VALIDATION_FAILED naming the field', () => {
  for (const op of reachable) {
    const { json } = validParts(op);
    for (const [pointer, body] of withNul(json)) {
      it(`${op.operationId} ${pointer}`, async () => {
        const { pathParams, query } = validParts(op);
        const checked = await svc.call(
          op.operationId,
          { pathParams, query, token: tokenFor(op), body },
          { status: 400, code: 'VALIDATION_FAILED' },
        );
        expect(checked.body).toMatchObject({ details: [{ in: 'body', path: pointer, message: 'must not contain U+0000 (NUL)' }] });
      });
    }
  }
});

describe('details lists at most 20 failures, then {omitted}', () => {
  for (const op of reachable.filter((o) => o.requestBody?.content['application/json'])) {
    it(`${op.operationId}: 45 unknown properties`, async () => {
      const { pathParams, query, json } = validParts(op);
      const body: Record<string, unknown> = { ...(json as object) };
      for (let i = 0; i < 45; i++) body[`unknown_${i}`] = i;
      const checked = await svc.call(
        op.operationId,
        { pathParams, query, token: tokenFor(op), body },
        { status: 400, code: 'VALIDATION_FAILED' },
      );
      const details = (checked.body as { details: unknown[] }).details;
      expect(details).toHaveLength(21);
      expect(details[20]).toEqual({ omitted: 25 });
    });
  }
});
