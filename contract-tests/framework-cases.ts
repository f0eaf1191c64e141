// The answers the framework gives before any handler runs (400, 401, 403, 413, 415), derived from each
// operation's parameters, security and request body in the spec, so the table grows with the spec.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { deref, mediaSchemaPointer, type Json, type SpecOperation, type SpecParameter } from './spec.ts';
import { doc, expectErrorBody, schemaErrors, sdkFunction, type Checked, type ContractService, type RawRequest } from './harness.ts';

/** The spec's "Requests" section: JSON bodies up to 64 KiB, images up to 2 MiB. */
export const JSON_LIMIT_BYTES = 64 * 1024;
export const IMAGE_LIMIT_BYTES = 2 * 1024 * 1024;
const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface FrameworkCase {
  title: string;
  status: number;
  code: string;
  /** 'sdk': a valid request through the generated client (only the credential is wrong); 'raw': a malformed one. */
  via: 'sdk' | 'raw';
  sdkToken?: string;
  raw?: RawRequest;
  /** Entries that `details` must contain (400 VALIDATION_FAILED). */
  details?: Array<{ in: string; path: string }>;
}

const isValid = (p: SpecParameter, value: unknown) => schemaErrors(p.schemaPointer, String(value), { wire: true }).length === 0;
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function validValue(p: SpecParameter): string | number {
  const candidates = [p.example, p.schema.example, ...asList(p.schema.examples), p.schema.default, ...asList(p.schema.enum)];
  candidates.push(randomUUID(), 1, 'BTC', `0x${'a'.repeat(40)}`, 'sample');
  const found = candidates.find((c): c is string | number => (typeof c === 'string' || typeof c === 'number') && isValid(p, c));
  if (found === undefined) throw new Error(`no valid sample value for ${p.in} parameter ${p.name}; give it an example in the spec`);
  return found;
}

/** A value the parameter's schema rejects, or undefined when every guess is valid (e.g. a free string). */
export function invalidValue(p: SpecParameter): string | undefined {
  const guesses = ['not.valid!', 'x'.repeat(300), ...(p.in === 'query' ? [''] : [])];
  return guesses.find((g) => !isValid(p, g));
}

interface ValidParts {
  pathParams: Record<string, string | number>;
  query: Record<string, string | number>;
  /** JSON body (the spec's example) or raw bytes with their media type. */
  json?: unknown;
  binary?: { contentType: string; bytes: Uint8Array<ArrayBuffer> };
}

export function validParts(op: SpecOperation): ValidParts {
  const parts: ValidParts = { pathParams: {}, query: {} };
  for (const p of op.parameters) {
    if (p.in === 'path') parts.pathParams[p.name] = validValue(p);
    if (p.in === 'query' && p.required) parts.query[p.name] = validValue(p);
  }
  const content = op.requestBody?.content ?? {};
  if (content['application/json']) parts.json = content['application/json'].example ?? {};
  else if (Object.keys(content).length) parts.binary = { contentType: Object.keys(content)[0]!, bytes: PNG_SIGNATURE };
  return parts;
}

/** Options for the generated SDK function: a request the spec accepts (keys the operation lacks are omitted). */
export function sdkOptions(op: SpecOperation): { path?: unknown; query?: unknown; body?: unknown } {
  const v = validParts(op);
  return {
    ...(Object.keys(v.pathParams).length ? { path: v.pathParams } : {}),
    ...(Object.keys(v.query).length ? { query: v.query } : {}),
    ...(v.json !== undefined ? { body: v.json } : {}),
    // The generated client types binary bodies as strings (zod z.string()).
    ...(v.binary ? { body: 'not-really-an-image' } : {}),
  };
}

function validRaw(op: SpecOperation, token: string | undefined): RawRequest {
  const v = validParts(op);
  const req: RawRequest = { pathParams: v.pathParams, query: v.query, token };
  if (v.json !== undefined) req.body = v.json;
  if (v.binary) Object.assign(req, { rawBody: v.binary.bytes, contentType: v.binary.contentType });
  return req;
}

/** A JSON object of exactly `bytes` bytes: {"<property>":"aaa…"}. */
export function jsonOfSize(bytes: number, property = 'pad'): string {
  const overhead = JSON.stringify({ [property]: '' }).length;
  return JSON.stringify({ [property]: 'a'.repeat(bytes - overhead) });
}

/**
 * undefined: the route works without a credential; a string: the operator token reaches it; null: it needs
 * a user or market-maker session, which cannot be obtained yet, so its body and parameters are out of reach.
 */
export function reachingToken(op: SpecOperation, operatorToken: string): string | undefined | null {
  if (op.security.length === 0 || op.security.some((r) => Object.keys(r).length === 0)) return undefined;
  return op.security.some((r) => 'operatorBearer' in r) ? operatorToken : null;
}

export function frameworkCases(op: SpecOperation, operatorToken: string): FrameworkCase[] {
  const cases: FrameworkCase[] = [];
  const documented = (status: number) => op.responses[String(status)] !== undefined;
  const schemes = new Set(op.security.flatMap((r) => Object.keys(r)));
  const anonymous = op.security.some((r) => Object.keys(r).length === 0);

  if (schemes.size && documented(401)) {
    if (!anonymous) cases.push({ title: 'no bearer token', status: 401, code: 'UNAUTHORIZED', via: 'sdk' });
    cases.push({ title: 'an unknown bearer token', status: 401, code: 'INVALID_SESSION', via: 'sdk', sdkToken: `unknown-${randomUUID()}` });
  }
  if (schemes.size && !schemes.has('operatorBearer') && documented(403)) {
    cases.push({
      title: 'the operator token on a non-operator route',
      status: 403,
      code: 'FORBIDDEN',
      via: 'sdk',
      sdkToken: operatorToken,
    });
  }
  const token = reachingToken(op, operatorToken);
  if (token === null) return cases;
  const base = () => validRaw(op, token);

  if (documented(400)) {
    for (const p of op.parameters) {
      const bad = invalidValue(p);
      if (bad === undefined || (p.in !== 'path' && p.in !== 'query')) continue;
      const req = base();
      if (p.in === 'path') req.pathParams = { ...req.pathParams, [p.name]: bad };
      else req.query = { ...req.query, [p.name]: bad };
      cases.push({
        title: `${p.in} parameter ${p.name}=${JSON.stringify(bad.slice(0, 20))}`,
        status: 400,
        code: 'VALIDATION_FAILED',
        via: 'raw',
        raw: req,
        details: [{ in: p.in, path: `/${p.name}` }],
      });
    }
    const requiredQuery = op.parameters.filter((p) => p.in === 'query' && p.required);
    if (requiredQuery.length) {
      cases.push({
        title: `without the required query parameters ${requiredQuery.map((p) => p.name).join(', ')}`,
        status: 400,
        code: 'VALIDATION_FAILED',
        via: 'raw',
        raw: { ...base(), query: {} },
        details: requiredQuery.map((p) => ({ in: 'query', path: `/${p.name}` })),
      });
    }
    const json = op.requestBody?.content['application/json'];
    if (json) {
      const example = (json.example ?? {}) as Json;
      cases.push({
        title: 'an unknown body property',
        status: 400,
        code: 'VALIDATION_FAILED',
        via: 'raw',
        raw: { ...base(), body: { ...example, unexpected_property: true } },
        details: [{ in: 'body', path: '/unexpected_property' }],
      });
      const schema = json.schema ? deref(doc, json.schema, mediaSchemaPointer(op.requestBody!, 'application/json')).value : {};
      const required = asList(schema.required) as string[];
      if (required.length) {
        cases.push({
          title: 'an empty object (required properties missing)',
          status: 400,
          code: 'VALIDATION_FAILED',
          via: 'raw',
          raw: { ...base(), body: {} },
          details: required.map((name) => ({ in: 'body', path: `/${name}` })),
        });
      }
      if (op.requestBody!.required) {
        cases.push({
          title: 'no body (Content-Type application/json, empty)',
          status: 400,
          code: 'VALIDATION_FAILED',
          via: 'raw',
          raw: { ...base(), body: undefined, rawBody: '', contentType: 'application/json' },
          details: [{ in: 'body', path: '' }],
        });
      }
    }
  }
  const mediaTypes = Object.keys(op.requestBody?.content ?? {});
  const isJson = mediaTypes.includes('application/json');
  if (mediaTypes.length && documented(413)) {
    const raw: RawRequest = isJson
      ? { ...base(), body: undefined, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' }
      : { ...base(), rawBody: new Uint8Array(IMAGE_LIMIT_BYTES + 1), contentType: mediaTypes[0] };
    cases.push({ title: `a body of ${isJson ? '64 KiB' : '2 MiB'} + 1 byte`, status: 413, code: 'PAYLOAD_TOO_LARGE', via: 'raw', raw });
  }
  if (mediaTypes.length && documented(415)) {
    const wrong = isJson ? 'text/plain' : 'application/json';
    cases.push({
      title: `Content-Type ${wrong}`,
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      via: 'raw',
      raw: { ...base(), body: undefined, rawBody: '{}', contentType: wrong },
    });
    // Bytes without any Content-Type (fetch labels strings text/plain, but not byte arrays).
    cases.push({
      title: 'no Content-Type',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      via: 'raw',
      raw: { ...base(), body: undefined, rawBody: new TextEncoder().encode('{}') as Uint8Array<ArrayBuffer>, contentType: undefined },
    });
  }
  return cases;
}

/** Sends the case, checks the response against the spec, and asserts the error body and its details. */
export async function runFrameworkCase(svc: ContractService, op: SpecOperation, c: FrameworkCase): Promise<Checked> {
  let checked: Checked;
  if (c.via === 'sdk') {
    const api = svc.client({ token: c.sdkToken });
    checked = (await api.run(sdkFunction(op.operationId)({ client: api.client, ...sdkOptions(op) }), { status: c.status, code: c.code }))
      .checked;
  } else {
    checked = await svc.call(op.operationId, c.raw, { status: c.status, code: c.code });
  }
  expectErrorBody(checked.body);
  for (const d of c.details ?? []) expect(checked.body.details).toContainEqual(expect.objectContaining(d));
  return checked;
}
