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
