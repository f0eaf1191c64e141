// fast-check arbitraries generated from the JSON Schemas of spec/openapi.yaml, for fuzz.test.ts:
// values that conform to a schema, and, in hostile mode, values where any node may be replaced by
// something hostile (NUL, unpaired surrogates, percent-encoding, very long strings, numbers at the
// int64 edges, wrong types), required properties dropped and unknown ones added.
import fc from 'fast-check';
import { deref, type Json } from './spec.ts';

/** Strings that broke (or could break) a service: NUL, unpaired surrogates, encodings, lookalikes. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udfff\ud800',
  '%C3%28',
  '%00',
  '%',
  '%ZZ',
  '%2F',
  'é',
  '\u202e\u0301',
  '🙂',
  '\uFEFF',
  '\n\r\t',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '\\',
  '0x10',
  '1e3',
  ' 5',
  '-0',
  '007',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '1e300',
  'NaN',
  'null',
  'x'.repeat(300),
];

/** Numbers at the edges: int32, 2^53, int64 (as close as a double gets), huge, fractional, negative zero. */
export const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -1.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  1e21,
  1e300,
  -1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

/** Integer texts for path and query parameters (the wire form). */
export const EDGE_INTEGER_TEXTS = [
  '0',
  '1',
  '007',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999',
  '1e3',
  '1e300',
  '0x10',
  ' 5',
  '5 ',
  '1.5',
  '+1',
  '',
  'Infinity',
];

export interface Options {
  hostile: boolean;
  /** Extra candidate values by property or parameter name (real ids from the fixture). */
  known: Record<string, unknown[]>;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.nat({ max: 5000 }).map((n) => 'y'.repeat(n)) },
);

/** An arbitrary for the schema at `schema` (a node of `doc`), named `name` for known values. */
export function schemaArb(doc: Json, schema: unknown, opts: Options, name = '', depth = 0): fc.Arbitrary<unknown> {
  const valid = validArb(doc, schema, opts, name, depth);
  const known = opts.known[name];
  const base = known?.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: valid }) : valid;
  return opts.hostile ? fc.oneof({ weight: 6, arbitrary: base }, { weight: 1, arbitrary: hostileValue }) : base;
}

function validArb(doc: Json, raw: unknown, opts: Options, name: string, depth: number): fc.Arbitrary<unknown> {
  const s = deref(doc, raw ?? {}, '').value;
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  const alternatives = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => schemaArb(doc, a, opts, name, depth + 1)));
  const types = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : guessTypes(s);
  if (types.length > 1) return fc.oneof(...types.map((t) => validArb(doc, { ...s, type: t }, opts, name, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(s);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArb(s);
    case 'array': {
      const min = Number(s.minItems ?? 0);
      const max = Math.max(min, Math.min(Number(s.maxItems ?? 4), depth > 2 ? min : 4));
      return fc.array(schemaArb(doc, s.items, opts, name, depth + 1), { minLength: min, maxLength: max });
    }
    case 'object':
      return objectArb(doc, s, opts, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function guessTypes(s: Json): string[] {
  if (s.properties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

function integerArb(s: Json): fc.Arbitrary<number> {
  const min = typeof s.minimum === 'number' ? s.minimum : s.format === 'int32' ? -(2 ** 31) : -Number.MAX_SAFE_INTEGER;
  const max =
    typeof s.maximum === 'number'
      ? Math.min(s.maximum, Number.MAX_SAFE_INTEGER)
      : s.format === 'int32'
        ? 2 ** 31 - 1
        : Number.MAX_SAFE_INTEGER;
  const edges = [min, max, Math.min(max, Math.max(min, 1)), Math.min(max, Math.max(min, 1_000))];
  const smallMin = Math.max(min, -1e6);
  const small = fc.integer({ min: smallMin, max: Math.max(Math.min(max, 1e6), smallMin) });
  return fc.oneof(
    { weight: 3, arbitrary: small },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
}

function stringArb(s: Json): fc.Arbitrary<string> {
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'binary') return fc.string({ maxLength: 20 });
  const minLength = Number(s.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(Number(s.maxLength ?? 40), 60));
  if (typeof s.pattern === 'string') {
    try {
      const re = new RegExp(s.pattern, 'u');
      // Every pattern of the spec carries its own length bounds.
      return fc.stringMatching(re);
    } catch {
      // a pattern fast-check cannot generate from: plain strings below
    }
  }
  return fc.string({ unit: 'grapheme', minLength, maxLength });
}

function objectArb(doc: Json, s: Json, opts: Options, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(props)) model[key] = schemaArb(doc, sub, opts, key, depth + 1);
  const keys = Object.keys(model);
  const requiredKeys = keys.filter((k) => required.has(k));
  const valid = fc.record(model, { requiredKeys });
  if (!opts.hostile) return valid;
  // Hostile objects: sometimes required properties missing, sometimes unknown properties (hostile names too).
  const extra = fc.dictionary(
    fc.oneof(fc.constantFrom('\u0000', '\ud800', '__proto__', 'constructor', '~1/', ''), fc.string({ maxLength: 8 })),
    hostileValue,
    { maxKeys: 3 },
  );
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.tuple(valid, extra).map(([v, x]) => ({ ...(v as object), ...x })) },
  );
}
