// The checker: every response the contract tests receive is checked against spec/openapi.yaml with an
// Ajv of our own (independent from the service's validator), and every conforming
// (operationId, documented status) pair is recorded for coverage-report.ts.
import { expect } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { documentedStatus, listOperations, loadSpec, mediaSchemaPointer } from './spec.ts';
import { createCoverageWriter } from './coverage-files.ts';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

export const doc = loadSpec();
export const operations = listOperations(doc);
const byId = new Map(operations.map((op) => [op.operationId, op]));
export const operationById = (operationId: string) => byId.get(operationId);
export const ERROR_SCHEMA = '/components/schemas/Error';

function newAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  return ajv;
}
const ajv = newAjv(false);
/** For strings from the wire (headers, query and path values): coerced the way the spec's types say. */
const wireAjv = newAjv(true);
const compiled = new Map<string, ValidateFunction>();

/** Validates a value against the schema at a JSON pointer of the document; returns readable errors. */
export function schemaErrors(pointer: string, value: unknown, opts: { wire?: boolean } = {}): string[] {
  const key = `${opts.wire ? 'wire' : 'json'}:${pointer}`;
  let validate = compiled.get(key);
  if (!validate) {
    // Wire values are wrapped so that coercion of a top-level scalar is visible to the validator.
    validate = opts.wire
      ? wireAjv.compile({ type: 'object', properties: { v: { $ref: `openapi#${pointer}` } } })
      : ajv.getSchema(`openapi#${pointer}`);
    if (!validate) throw new Error(`no schema at openapi#${pointer}`);
    compiled.set(key, validate);
  }
  const ok = validate(opts.wire ? { v: value } : value);
  return ok ? [] : (validate.errors ?? []).map(formatAjvError);
}

function formatAjvError(e: ErrorObject): string {
  return `${e.instancePath.replace(/^\/v(?=\/|$)/, '') || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

export interface Expected {
  status?: number;
  /** For error statuses: the `code` the body must carry. */
  code?: string;
  /** Accept 501 NOT_IMPLEMENTED as "not built yet" (neither a failure nor coverage). */
  allowNotBuilt?: boolean;
}

export interface Checked {
  operationId: string;
  status: number;
  /** The documented status key it matched ('200', '4XX', 'default'); undefined when not built. */
  statusKey: string | undefined;
  headers: Headers;
  text: string;
  /** Parsed JSON for JSON media types, else the text. */
  body: unknown;
  notBuilt: boolean;
}

const recordExercised = createCoverageWriter(() => expect.getState().testPath ?? 'unknown');

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/;
/** Headers the spec's prose promises on every response that documents them (its header objects omit `required`). */
const PROMISED_HEADERS = new Set(['x-request-id', 'retry-after']);

const mediaTypeOf = (header: string | null) => (header ?? '').split(';')[0]!.trim().toLowerCase();
const mediaMatches = (documented: string, actual: string) =>
  documented === actual || documented === '*/*' || (documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1)));

/**
 * Checks one response of an operation against the spec: documented status, documented media type,
 * body schema, promised/required headers, and the expected status and error code when given.
 * Throws a ContractViolation listing every problem; records the pair as exercised when it conforms.
 */
export function checkResponse(operationId: string, response: Response, bodyText: string, expected: Expected = {}): Checked {
  const op = byId.get(operationId);
  if (!op) throw new ContractViolation(`no operation ${operationId} in spec/openapi.yaml`);
  const status = response.status;
  const media = mediaTypeOf(response.headers.get('content-type'));
  const problems: string[] = [];
  let body: unknown = bodyText;
  let parsed = true;
  if (JSON_MEDIA.test(media)) {
    try {
      body = JSON.parse(bodyText);
    } catch {
      parsed = false;
      problems.push(`Content-Type is ${media} but the body is not JSON`);
    }
  }
  const result: Checked = { operationId, status, statusKey: undefined, headers: response.headers, text: bodyText, body, notBuilt: false };
  const notBuilt = status === 501 && (body as { code?: unknown } | null)?.code === 'NOT_IMPLEMENTED';
  if (notBuilt && expected.allowNotBuilt) {
    problems.push(...schemaErrors(ERROR_SCHEMA, body).map((e) => `501 body: ${e}`));
    if (!problems.length) return { ...result, notBuilt: true };
  }
  if (expected.status !== undefined && status !== expected.status) problems.push(`expected status ${expected.status}, got ${status}`);
  const key = documentedStatus(op, status);
  if (!key) {
    const hint = notBuilt ? ' (501 NOT_IMPLEMENTED: the operation is not built yet)' : '';
    problems.push(`status ${status} is not documented${hint}; documented: ${Object.keys(op.responses).join(', ')}`);
  } else {
    const documented = op.responses[key]!;
    if (documented.mediaTypes.length === 0) {
      if (bodyText !== '') problems.push(`${key} documents no body, got ${JSON.stringify(bodyText.slice(0, 200))}`);
    } else {
      const mediaType = documented.mediaTypes.find((m) => mediaMatches(m, media));
      if (!mediaType) problems.push(`Content-Type ${media || '(none)'} is not documented for ${key}: ${documented.mediaTypes.join(', ')}`);
      else if (JSON_MEDIA.test(media) || media.startsWith('text/')) {
        const pointer = mediaSchemaPointer(documented, mediaType);
        if (parsed) problems.push(...schemaErrors(pointer, body).map((e) => `body vs openapi#${pointer}: ${e}`));
      }
    }
    for (const [name, header] of Object.entries(documented.headers)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required || PROMISED_HEADERS.has(name)) problems.push(`header ${name} is missing`);
      } else if (header.schema) {
        problems.push(...schemaErrors(header.pointer, value, { wire: true }).map((e) => `header ${name}=${value}: ${e}`));
      }
    }
    result.statusKey = key;
  }
  if (expected.code !== undefined) {
    const code = (body as { code?: unknown } | null)?.code;
    if (code !== expected.code) problems.push(`expected error code ${expected.code}, got ${JSON.stringify(code)}`);
  }
  if (problems.length) {
    throw new ContractViolation(
      `${operationId} ${op.method} ${op.path} -> ${status} breaks the contract:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        `  body: ${bodyText.slice(0, 600)}`,
    );
  }
  recordExercised(operationId, key!);
  return result;
}

/** An error response of no operation (unknown route, 405): the one error body, as JSON, with a request id. */
export function checkErrorResponse(
  response: Response,
  bodyText: string,
  expected: { status: number; code: string },
): Record<string, unknown> {
  const problems: string[] = [];
  if (response.status !== expected.status) problems.push(`expected status ${expected.status}, got ${response.status}`);
  if (mediaTypeOf(response.headers.get('content-type')) !== 'application/json')
    problems.push(`Content-Type ${response.headers.get('content-type')}`);
  if (!response.headers.get('x-request-id')) problems.push('header x-request-id is missing');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(bodyText) as Record<string, unknown>;
    problems.push(...schemaErrors(ERROR_SCHEMA, body).map((e) => `body vs Error: ${e}`));
    if (body.code !== expected.code) problems.push(`expected error code ${expected.code}, got ${JSON.stringify(body.code)}`);
  } catch {
    problems.push('the body is not JSON');
  }
  if (problems.length)
    throw new ContractViolation(
      `${response.url} -> ${response.status}:\n${problems.map((p) => `  - ${p}`).join('\n')}\n  body: ${bodyText.slice(0, 600)}`,
    );
  return body;
}

/** Asserts the one error body (src/http/errors.ts): exactly {error, code, details}, `error` non-empty. */
export function expectErrorBody(body: unknown): asserts body is { error: string; code: string; details: unknown } {
  expect(Object.keys(body as object).sort()).toEqual(['code', 'details', 'error']);
  expect((body as { error: unknown }).error).toEqual(expect.stringMatching(/\S/));
}
