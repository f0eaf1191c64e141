// The docs portal's configuration over HTTP: DOCS_ENABLED=false removes /docs but keeps the documents,
// PUBLIC_URL names the instance in them; the portal's pages and assets come from the service itself.
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestService, type TestService } from '../testing/test-service.js';

let on: TestService;
let off: TestService;

beforeAll(async () => {
  [on, off] = await Promise.all([
    startTestService('docson'),
    startTestService('docsoff', { DOCS_ENABLED: 'false', PUBLIC_URL: 'https://api.partner.test/rfq/' }),
  ]);
});
afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

describe('DOCS_ENABLED=false and PUBLIC_URL', () => {
  it('the portal answers 404 in the error body; the documents stay', async () => {
    for (const path of ['/docs', '/docs/ws', '/docs/assets/scalar.js']) {
      const res = await fetch(new URL(path, off.svc.baseUrl));
      expect(res.status).toBe(404);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code).toBe('NOT_FOUND');
      expect(body.error).toContain('DOCS_ENABLED=false');
    }
    expect((await fetch(new URL('/openapi.yaml', off.svc.baseUrl))).status).toBe(200);
  });

  it('the documents name PUBLIC_URL, whatever Host the request carried', async () => {
    const openapi = (await (await fetch(new URL('/openapi.json', off.svc.baseUrl))).json()) as { servers: Array<{ url: string }> };
    expect(openapi.servers.map((s) => s.url)).toEqual(['https://api.partner.test/rfq']);
    const asyncapi = parse(await (await fetch(new URL('/asyncapi.yaml', off.svc.baseUrl))).text()) as {
      servers: Record<string, Record<string, string>>;
    };
    for (const s of Object.values(asyncapi.servers)) expect([s.host, s.protocol, s.pathname]).toEqual(['api.partner.test', 'wss', '/rfq']);
  });
});

describe('the portal (default settings)', () => {
  it('pages load scripts, styles and documents from this service only, under a Content-Security-Policy', async () => {
    for (const path of ['/docs', '/docs/ws']) {
      const res = await fetch(new URL(path, on.svc.baseUrl));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'.*connect-src 'self'/);
      const html = await res.text();
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//); // nothing from another origin
      const assets = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets) expect(`${asset} ${(await fetch(new URL(asset, on.svc.baseUrl))).status}`).toBe(`${asset} 200`);
    }
  });

  it('assets are gzipped for clients that accept it and revalidate to 304; unknown names are 404', async () => {
    const url = new URL('/docs/assets/scalar.js', on.svc.baseUrl);
    // node:http, not fetch: fetch would decompress on its own.
    const gz = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      get(url, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    expect(gz.encoding).toBe('gzip');
    const plain = await fetch(url, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect(gz.body.length).toBeLessThan(bytes.length / 2);
    expect(gunzipSync(gz.body).equals(bytes)).toBe(true);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    const etag = plain.headers.get('etag')!;
    expect((await fetch(url, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    for (const name of ['nope.js', '..%2F..%2Fpackage.json', 'package.json']) {
      expect((await fetch(new URL(`/docs/assets/${name}`, on.svc.baseUrl))).status).toBe(404);
    }
  });
});
