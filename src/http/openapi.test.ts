// freezeOperations' compiled route match answers what openapi-backend's own matchOperation answers, for
// every operation's path (templates filled in), trailing slashes, extra and missing segments, every method.
import { describe, expect, it } from 'vitest';
import { createOpenApiBackend, freezeOperations, HTTP_METHODS } from './openapi.js';
import { loadOpenApiDocument } from './spec.js';

describe('freezeOperations', () => {
  it('matches every probe exactly as the library does', async () => {
    const document = loadOpenApiDocument();
    const api = createOpenApiBackend(document, new Set(), async () => undefined);
    await api.init();
    const paths = Object.keys(document.paths ?? {});
    const fills = ['00000000-0000-4000-8000-000000000001', '42', 'current', 'lookup', 'x.y', 'a%2Fb'];
    const probes = new Set<string>(['/', '', '/v1', '/v1/', '/nope', '/v1/contests/', '//v1/contests', '/v1/contests?limit=1']);
    for (const p of paths) {
      for (const f of fills) {
        const filled = p.replace(/\{[^}]+\}/g, f);
        for (const v of [filled, `${filled}/`, `${filled}/extra`, filled.split('/').slice(0, -1).join('/'), filled.toUpperCase()])
          probes.add(v);
      }
    }
    const match = (path: string, method: string) => api.router.matchOperation({ method, path, headers: {} })?.operationId ?? null;
    const before = [...probes].flatMap((path) => HTTP_METHODS.map((m) => [path, m, match(path, m)] as const));
    freezeOperations(api);
    const after = before.map(([path, m]) => [path, m, match(path, m)] as const);
    expect(after).toEqual(before);
    expect(before.filter(([, , id]) => id !== null).length).toBeGreaterThan(paths.length);
  }, 60_000); // openapi-backend's init and thousands of probes: about 6 s on a loaded 2-core box
});
