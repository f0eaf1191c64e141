// The OpenAPI document as the contract tests read it: every operation with its parameters, request body,
// security and documented responses, `$ref`s of parameters/responses resolved, and the JSON pointer
// of each response schema (for Ajv). Shared by the harness and coverage-report.ts; no vitest here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SPEC_PATH = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type Json = Record<string, unknown>;

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Json;
  /** JSON pointer of the parameter's schema, for `openapi#<pointer>`. */
  schemaPointer: string;
  example?: unknown;
}

export interface SpecResponse {
  /** The status key as written in the spec: '200', '4XX', 'default'. */
  status: string;
  /** JSON pointer (under the `openapi` schema id) of the resolved response object. */
  pointer: string;
  /** Media types (keys of `content`); empty when the response has no body. */
  mediaTypes: string[];
  headers: Record<string, { required: boolean; schema: Json | undefined; pointer: string }>;
}

export interface SpecOperation {
  operationId: string;
  method: string;
  /** Path template, e.g. /v1/contests/{id}. */
  path: string;
  parameters: SpecParameter[];
  requestBody?: {
    required: boolean;
    /** JSON pointer of the resolved request body object. */
    pointer: string;
    content: Record<string, { schema?: Json; example?: unknown }>;
  };
  /** Security requirements; [] means none, [{}, {bearer: []}] means optional user session. */
  security: Array<Record<string, string[]>>;
  responses: Record<string, SpecResponse>;
}

export function loadSpec(path = SPEC_PATH): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** Follows a local `$ref` chain; returns the target and its JSON pointer. */
export function deref(doc: Json, value: unknown, pointer: string): { value: Json; pointer: string } {
  let current = value as Json;
  let at = pointer;
  for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/') || hops > 20) throw new Error(`unsupported $ref ${ref} at ${at}`);
    at = ref.slice(1);
    current = at
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[unescape(key)], doc) as Json;
    if (current === undefined) throw new Error(`$ref ${ref} does not resolve`);
  }
  return { value: current, pointer: at };
}

export function listOperations(doc: Json): SpecOperation[] {
  const out: SpecOperation[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op?.operationId) continue;
      const opPointer = `/paths/${escape(path)}/${method}`;
      const byKey = new Map<string, SpecParameter>();
      const raw = [
        ...((item.parameters as unknown[]) ?? []).map((p, i) => deref(doc, p, `/paths/${escape(path)}/parameters/${i}`)),
        ...((op.parameters as unknown[]) ?? []).map((p, i) => deref(doc, p, `${opPointer}/parameters/${i}`)),
      ];
      for (const { value: p, pointer } of raw) {
        byKey.set(`${p.in}:${p.name}`, {
          name: p.name as string,
          in: p.in as SpecParameter['in'],
          required: p.required === true,
          schema: (p.schema ?? {}) as Json,
          schemaPointer: `${pointer}/schema`,
          example: p.example,
        });
      }
      const responses: Record<string, SpecResponse> = {};
      for (const [status, r] of Object.entries((op.responses ?? {}) as Json)) {
        const { value, pointer } = deref(doc, r, `${opPointer}/responses/${escape(status)}`);
        const headers: SpecResponse['headers'] = {};
        for (const [name, h] of Object.entries((value.headers ?? {}) as Json)) {
          const header = deref(doc, h, `${pointer}/headers/${escape(name)}`);
          headers[name.toLowerCase()] = {
            required: header.value.required === true,
            schema: header.value.schema as Json | undefined,
            pointer: `${header.pointer}/schema`,
          };
        }
        responses[status] = { status, pointer, mediaTypes: Object.keys((value.content ?? {}) as Json), headers };
      }
      const body = op.requestBody ? deref(doc, op.requestBody, `${opPointer}/requestBody`) : undefined;
      out.push({
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path,
        parameters: [...byKey.values()],
        requestBody: body
          ? {
              required: body.value.required === true,
              pointer: body.pointer,
              content: (body.value.content ?? {}) as NonNullable<SpecOperation['requestBody']>['content'],
            }
          : undefined,
        security: (op.security ?? doc.security ?? []) as SpecOperation['security'],
        responses,
      });
    }
  }
  return out;
}

/** JSON pointer of the schema of one media type of a response or request body, for `openapi#<pointer>`. */
export function mediaSchemaPointer(owner: { pointer: string }, mediaType: string): string {
  return `${owner.pointer}/content/${escape(mediaType)}/schema`;
}

/** The documented status key that covers an actual status: exact, then 4XX/5XX, then default. */
export function documentedStatus(op: SpecOperation, status: number): string | undefined {
  const exact = String(status);
  if (op.responses[exact]) return exact;
  const range = `${exact[0]}XX`;
  if (op.responses[range]) return range;
  if (op.responses[range.toLowerCase()]) return range.toLowerCase();
  return op.responses.default ? 'default' : undefined;
}

/** The operation whose method and path template match a concrete request (literal segments win). */
export function matchOperation(ops: SpecOperation[], method: string, pathname: string): SpecOperation | undefined {
  const segments = pathname.split('/');
  let best: { op: SpecOperation; literals: number } | undefined;
  for (const op of ops) {
    if (op.method !== method.toUpperCase()) continue;
    const template = op.path.split('/');
    if (template.length !== segments.length) continue;
    let literals = 0;
    const ok = template.every((t, i) => {
      if (/^\{[^}]+\}$/.test(t)) return segments[i] !== '';
      if (t === segments[i]) literals++;
      return t === segments[i];
    });
    if (ok && (!best || literals > best.literals)) best = { op, literals };
  }
  return best?.op;
}
