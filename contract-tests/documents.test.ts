// The published documents: served from spec/ with the instance's own server URL, JSON and YAML alike,
// cacheable with an ETag that revalidates to 304.
import { readFileSync } from 'node:fs';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { parse } from 'yaml';
import { REMOTE_BASE_URL, sdkFunction, startContractService, type ContractService } from './harness.ts';

let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('documents');
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

/** The file in spec/ as this instance serves it: its examples' localhost:3000 name the instance (src/http/docs/documents.ts). */
const fromSpec = (file: string) => {
  const base = new URL(svc.baseUrl);
  const ws = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}`;
  const text = readFileSync(new URL(`../spec/${file}`, import.meta.url), 'utf8')
    .replaceAll('http://localhost:3000', svc.baseUrl)
    .replaceAll('ws://localhost:3000', ws)
    .replaceAll('localhost:3000', base.host);
  return parse(text) as Record<string, unknown>;
};
const CASES = [
  { id: 'getOpenApiJson', file: 'openapi.yaml', media: 'application/json' },
  { id: 'getOpenApiYaml', file: 'openapi.yaml', media: 'application/yaml' },
  { id: 'getAsyncApiJson', file: 'asyncapi.yaml', media: 'application/json' },
  { id: 'getAsyncApiYaml', file: 'asyncapi.yaml', media: 'application/yaml' },
] as const;

describe('published documents', () => {
  for (const { id, file, media } of CASES) {
    const call = sdkFunction(id); // the generated SDK function of the operation
    it(`${id}: 200 ${media}, spec/${file} with this instance as server; 304 for its ETag`, async () => {
      const api = svc.client();
      const { checked } = await api.run(call({ client: api.client }), { status: 200 });
      expect(checked.headers.get('content-type')).toBe(`${media}; charset=utf-8`);
      expect(checked.headers.get('cache-control')).toBe('public, max-age=60');
      const served = (media === 'application/json' ? JSON.parse(checked.text) : parse(checked.text)) as Record<string, unknown>;
      const spec = fromSpec(file);
      // Everything but the servers is the file in spec/, with this instance where its examples say localhost:3000.
      expect({ ...served, servers: null }).toEqual({ ...spec, servers: null });
      const host = new URL(svc.baseUrl).host;
      if (file === 'openapi.yaml') {
        expect(served.servers).toEqual([{ url: svc.baseUrl, description: expect.any(String) }]); // remote: its PUBLIC_URL must be CONTRACT_BASE_URL
      } else {
        const servers = served.servers as Record<string, { host: string; protocol: string }>;
        expect(Object.keys(servers)).toEqual(Object.keys(spec.servers as object)); // channels refer to them by name
        const protocol = new URL(svc.baseUrl).protocol === 'https:' ? 'wss' : 'ws';
        for (const s of Object.values(servers)) expect([s.host, s.protocol]).toEqual([host, protocol]);
      }

      const etag = checked.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const again = await api.run(call({ client: api.client, headers: { 'If-None-Match': etag } }), { status: 304 });
      expect(again.checked.text).toBe('');
      expect(again.checked.headers.get('etag')).toBe(etag);
      // Another ETag (a document from before a deployment) gets the full document again.
      await api.run(call({ client: api.client, headers: { 'If-None-Match': '"stale"' } }), { status: 200 });
    });
  }

  // Another deployment may set PUBLIC_URL (then every client gets that URL): only a local service shows this.
  it.skipIf(REMOTE_BASE_URL)('the servers entry follows the Host the client used (each variant with its own ETag)', async () => {
    const { port } = new URL(svc.baseUrl);
    const viaLocalhost = await fetch(`http://localhost:${port}/openapi.json`);
    const viaIp = await fetch(`${svc.baseUrl}/openapi.json`);
    expect(((await viaLocalhost.json()) as { servers: Array<{ url: string }> }).servers[0]!.url).toBe(`http://localhost:${port}`);
    expect(((await viaIp.json()) as { servers: Array<{ url: string }> }).servers[0]!.url).toBe(svc.baseUrl);
    expect(viaLocalhost.headers.get('etag')).not.toBe(viaIp.headers.get('etag'));
    expect(viaIp.headers.get('vary')).toBe('Host');
  });
});
