// The checker itself: responses that break the contract must be rejected (no service needed). Every
// response here is non-conforming on purpose, so none of them is recorded as coverage.
import { describe, it, expect } from 'vitest';
import { checkResponse, ContractViolation, type Expected } from './harness.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'harness-self-test' };
const json = (status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS) =>
  new Response(JSON.stringify(body), { status, headers });
const check = async (response: Response, expected?: Expected) => checkResponse('getHealth', response, await response.text(), expected);
const rejects = (response: Response, message: RegExp, expected?: Expected) =>
  expect(check(response, expected)).rejects.toThrow(
    expect.objectContaining({ name: ContractViolation.name, message: expect.stringMatching(message) }),
  );

describe('checkResponse rejects', () => {
  it('a status the operation does not document', () =>
    rejects(json(404, { error: 'x', code: 'NOT_FOUND', details: null }), /status 404 is not documented/));
  it('a media type the status does not document', () =>
    rejects(
      new Response('ok', { status: 200, headers: { ...JSON_HEADERS, 'content-type': 'text/plain' } }),
      /Content-Type text\/plain is not documented/,
    ));
  it('JSON that is not JSON', () => rejects(new Response('{"status":', { status: 200, headers: JSON_HEADERS }), /not JSON/));
  it('a body property the schema does not have', () => rejects(json(200, { status: 'ok', extra: 1 }), /additionalProperty/));
  it('a body value outside the schema', () => rejects(json(200, { status: 'fine' }), /allowed values/));
  it('a response without X-Request-Id', () =>
    rejects(json(200, { status: 'ok' }, { 'content-type': 'application/json' }), /x-request-id is missing/));
  it('an error body with more than {error, code, details}', () =>
    rejects(json(500, { error: 'boom', code: 'INTERNAL', details: null, stack: 'at x' }), /additionalProperty/));
  it('an error code other than the expected one', () =>
    rejects(json(500, { error: 'boom', code: 'SOMETHING_ELSE', details: null }), /expected error code INTERNAL/, { code: 'INTERNAL' }));
  it('a status other than the expected one', () => rejects(json(200, { status: 'fine' }), /expected status 500, got 200/, { status: 500 }));
  it('501 NOT_IMPLEMENTED, unless the caller accepts "not built"', async () => {
    const notBuilt = { error: 'not built', code: 'NOT_IMPLEMENTED', details: null };
    await rejects(json(501, notBuilt), /not built yet/);
    const checked = await check(json(501, notBuilt), { allowNotBuilt: true });
    expect(checked).toMatchObject({ notBuilt: true, statusKey: undefined });
  });
});
