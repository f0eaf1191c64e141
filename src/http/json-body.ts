// JSON bodies serialized once: a cached page's body (src/http/page-cache.ts) is the same object on every
// hit, so its bytes are computed when the page is stored and written as they are (a Buffer: no per-request
// UTF-8 encoding). Such a body must not be changed afterwards (a handler that needs other fields builds a
// new object from it).
const bytes = new WeakMap<object, Buffer>();

/** Serializes `body` now; the response writer sends these bytes whenever it is given this very object. */
export function preserialized<T extends object>(body: T): T {
  bytes.set(body, Buffer.from(JSON.stringify(body), 'utf8'));
  return body;
}

/** The JSON of a response body: the stored bytes of a preserialized body, else JSON.stringify's text. */
export function jsonPayload(body: unknown): Buffer | string {
  return (typeof body === 'object' && body !== null && bytes.get(body)) || JSON.stringify(body);
}

const CALLER_NULL = Buffer.from('"caller":null');
/** A preserialized page's bytes cut at each `"caller":null` (computed on the first caller's copy). */
const cuts = new WeakMap<object, Buffer[]>();

function cutsOf(page: object): Buffer[] | undefined {
  let parts = cuts.get(page);
  if (parts) return parts;
  const whole = bytes.get(page);
  if (!whole) return undefined;
  parts = [];
  let from = 0;
  for (let at = whole.indexOf(CALLER_NULL); at !== -1; at = whole.indexOf(CALLER_NULL, from)) {
    parts.push(whole.subarray(from, at));
    from = at + CALLER_NULL.length;
  }
  parts.push(whole.subarray(from));
  cuts.set(page, parts);
  return parts;
}

/**
 * `copy` is the preserialized `page` with its `caller: null` fields, in document order, set to `callers`
 * (and nothing else changed): its bytes are the page's bytes with each `"caller":null` replaced by
 * `"caller":<that value's JSON>`, so a signed-in read is spliced from the cached page instead of being
 * serialized again. (In JSON text `"caller":null` can only be a key and its value: a quote inside a string is
 * escaped.) When the page does not have exactly that many such fields, the copy is serialized as usual.
 */
export function withCallerFields<T extends object>(page: object, copy: T, callers: readonly unknown[]): T {
  const parts = cutsOf(page);
  if (!parts || parts.length !== callers.length + 1) return copy;
  const out: Buffer[] = [parts[0]!];
  for (let i = 0; i < callers.length; i++) out.push(callerBytes(callers[i]), parts[i + 1]!);
  bytes.set(copy, Buffer.concat(out));
  return copy;
}

/** A caller value's bytes, remembered per object: a cached caller value is the same object on every hit. */
const callerObjects = new WeakMap<object, Buffer>();
function callerBytes(value: unknown): Buffer {
  const known = typeof value === 'object' && value !== null ? callerObjects.get(value) : undefined;
  if (known) return known;
  const b = Buffer.from(`"caller":${JSON.stringify(value)}`, 'utf8');
  if (typeof value === 'object' && value !== null) callerObjects.set(value, b);
  return b;
}

/**
 * The signed-in copies themselves, remembered by their caller value (a cached object: the same one on every
 * hit while the caller cache keeps it) together with the page they were made from: a repeated signed-in read
 * of an unchanged page reuses the copy and its bytes instead of building and splicing them again. Bounded
 * (oldest first) so that memory stays at most MAX_COPIES pages' bytes whatever the caller cache holds.
 */
const copies = new Map<object, { page: object; copy: object }>();
const MAX_COPIES = 1000;

/**
 * withCallerFields(page, build(), callers), remembered by `caller` while `page` is the same object. `caller` is
 * the cached caller value: one object for a page with one caller field, an array of them (one per row, in
 * document order) for a page with several.
 */
export function callerCopy<T extends object>(page: object, caller: object, build: () => T): T {
  const known = copies.get(caller);
  if (known && known.page === page) return known.copy as T;
  const copy = withCallerFields(page, build(), Array.isArray(caller) ? caller : [caller]);
  copies.delete(caller);
  if (copies.size >= MAX_COPIES) copies.delete(copies.keys().next().value!);
  copies.set(caller, { page, copy });
  return copy;
}
