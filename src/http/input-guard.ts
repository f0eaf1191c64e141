// Checks that run on the raw request before the spec's validator, for input the validator would let
// through to a 500 or echo back raw (issues 15 and 17):
//   - every path parameter must be valid percent-encoded UTF-8;
//   - every string (path, query, JSON body) must be well-formed Unicode without U+0000, which
//     PostgreSQL text cannot store;
//   - integer path and query parameters must be decimal digits (an optional `-`, no exponent, no hex,
//     no spaces) within their format's range (int64 checked exactly, with BigInt).
// Integer path parameters are rewritten in canonical form (`007` -> `7`), so handlers and their
// messages see the parsed value, never the raw text.
import { ValidationFailed } from '../domain/errors.js';

export interface Detail {
  in: 'path' | 'query' | 'body';
  path: string;
  message: string;
}

interface ParamLike {
  name?: string;
  in?: string;
  schema?: { type?: unknown; format?: unknown };
}

export interface GuardedOperation {
  /** The path template, e.g. /v1/admin/markets/{market_id}/resolve. */
  path: string;
  parameters?: unknown[];
}

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};
const DECIMAL = /^-?[0-9]{1,40}$/;

/**
 * Returns the path and query to route and validate: integer path parameters canonical, and no query at
 * all for an operation that declares no query parameter (its query string is ignored, so probes and
 * cache-busters never fail). Throws 400 VALIDATION_FAILED listing every failure.
 */
export function guardRequest(
  op: GuardedOperation,
  rawPath: string,
  rawQuery: Record<string, unknown>,
  body: unknown,
): { path: string; query: Record<string, unknown> } {
  const details: Detail[] = [];
  const params = (op.parameters ?? []) as ParamLike[];
  const param = (where: string, name: string) => params.find((p) => p.in === where && p.name === name);
  const query = params.some((p) => p.in === 'query') ? (rawQuery ?? {}) : {};

  const template = op.path.split('/');
  const segments = rawPath.split('/');
  if (template.length === segments.length) {
    template.forEach((t, i) => {
      const name = /^\{([^}]+)\}$/.exec(t)?.[1];
      if (!name) return;
      const at = `/${name}`;
      let value: string;
      try {
        value = decodeURIComponent(segments[i]!);
      } catch {
        details.push({ in: 'path', path: at, message: 'is not valid percent-encoded UTF-8' });
        return;
      }
      const textProblem = checkText(value);
      if (textProblem) return details.push({ in: 'path', path: at, message: textProblem });
      const parsed = parseInteger(param('path', name)?.schema, value);
      if (typeof parsed === 'string') return details.push({ in: 'path', path: at, message: parsed });
      if (parsed !== undefined) segments[i] = parsed.toString();
    });
  }

  for (const [name, raw] of Object.entries(query)) {
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (typeof value !== 'string') continue;
      const at = `/${escapePointer(name)}`;
      const problem = checkText(value) ?? parseInteger(param('query', name)?.schema, value);
      if (typeof problem === 'string') details.push({ in: 'query', path: at, message: problem });
    }
  }

  walkStrings(body, (pointer, s) => {
    const problem = checkText(s);
    // A pointer into a deeply nested body is cut, so that the answer stays small.
    if (problem) details.push({ in: 'body', path: pointer.length > 256 ? `${pointer.slice(0, 256)}…` : pointer, message: problem });
  });

  if (details.length) {
    const summary = details
      .slice(0, 3)
      .map((d) => `${d.in} ${d.path || '/'}: ${d.message}`)
      .join('; ');
    throw new ValidationFailed(`request does not match the API specification: ${summary}${details.length > 3 ? '; …' : ''}`, details);
  }
  return { path: segments.join('/'), query };
}

/** U+0000 and unpaired surrogates cannot be stored or echoed faithfully: refuse them everywhere. */
export function checkText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (!s.isWellFormed()) return 'must be well-formed Unicode (it contains an unpaired UTF-16 surrogate)';
  return undefined;
}

/**
 * For an integer parameter: its value as a BigInt, or a message saying why it is refused.
 * undefined when the schema is not an integer one (other types are the validator's business).
 */
export function parseInteger(schema: ParamLike['schema'], value: string): bigint | string | undefined {
  const type = schema?.type;
  if (type !== 'integer' && !(Array.isArray(type) && type.includes('integer'))) return undefined;
  if (!DECIMAL.test(value)) return 'must be an integer written in decimal digits (an optional leading -, no exponent, no spaces)';
  const n = BigInt(value);
  const range = RANGES[String(schema?.format)] ?? RANGES.int64!;
  if (n < range[0] || n > range[1]) return `${n} is out of range: must be between ${range[0]} and ${range[1]}`;
  return n;
}

/** Visits every string value of a JSON value, iteratively (bodies can nest deeply). */
function walkStrings(value: unknown, visit: (pointer: string, s: string) => void): void {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === 'string') visit(pointer, v);
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${pointer}/${i}`]);
    else if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${pointer}/${escapePointer(entries[i]![0])}`]);
    }
  }
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
