// JSON bodies serialized once: a cached page's body (src/http/page-cache.ts) is the same object on every
// hit, so its text is computed when the page is stored and written as is. Such a body must not be changed
// afterwards (a handler that needs other fields builds a new object from it).
const texts = new WeakMap<object, string>();

/** Serializes `body` now; the response writer sends this text whenever it is given this very object. */
export function preserialized<T extends object>(body: T): T {
  texts.set(body, JSON.stringify(body));
  return body;
}

/** The JSON text of a response body: the stored text of a preserialized body, else JSON.stringify. */
export function jsonText(body: unknown): string {
  return (typeof body === 'object' && body !== null && texts.get(body)) || JSON.stringify(body);
}
