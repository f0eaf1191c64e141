import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createDocumentStore, matchesEtag } from './documents.js';

describe('published documents', () => {
  it('PUBLIC_URL wins over the Host header; https gives wss, and a path prefix reaches the AsyncAPI pathname', () => {
    const store = createDocumentStore({ publicUrl: 'https://api.example.com/rfq/', fallbackHost: 'localhost:3000' });
    const openapi = JSON.parse(store.get('openapi', 'json', 'evil.test').body.toString()) as { servers: Array<{ url: string }> };
    expect(openapi.servers.map((s) => s.url)).toEqual(['https://api.example.com/rfq']);
    const asyncapi = parse(store.get('asyncapi', 'yaml', 'evil.test').body.toString()) as {
      servers: Record<string, { host: string; protocol: string; pathname: string }>;
    };
    expect(Object.values(asyncapi.servers).map((s) => [s.host, s.protocol, s.pathname])).toEqual([['api.example.com', 'wss', '/rfq']]);
  });

  it("the examples name this instance, not the development default's localhost:3000 (a SIWE message, the WebSocket URL)", () => {
    const store = createDocumentStore({ publicUrl: 'https://api.example.com', fallbackHost: 'localhost:3000' });
    for (const name of ['openapi', 'asyncapi'] as const) {
      for (const format of ['json', 'yaml'] as const)
        expect(store.get(name, format, undefined).body.toString()).not.toContain('localhost:3000');
    }
    const openapi = JSON.parse(store.get('openapi', 'json', undefined).body.toString()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { example: { message: string } }> } } }>;
    };
    const message = openapi.paths['/v1/auth/wallet']!.post.requestBody.content['application/json']!.example.message;
    expect(message).toMatch(/^api\.example\.com wants you to sign in/);
    expect(message).toContain('\nURI: https://api.example.com\n');
    expect(store.get('asyncapi', 'yaml', undefined).body.toString()).toContain('wss://api.example.com/v1/ws');
  });

  it('a Host header that is no host[:port] falls back to the configured host', () => {
    const store = createDocumentStore({ publicUrl: undefined, fallbackHost: 'localhost:3000' });
    for (const host of ['a b', 'x/y', 'evil.test@other', '"quoted"', undefined]) {
      const doc = JSON.parse(store.get('openapi', 'json', host).body.toString()) as { servers: Array<{ url: string }> };
      expect(doc.servers[0]!.url).toBe('http://localhost:3000');
    }
    expect(JSON.parse(store.get('openapi', 'json', 'API.example.com:8443').body.toString()).servers[0].url).toBe(
      'http://api.example.com:8443',
    );
  });

  it('gives each Host variant its own strong ETag, cheaply and with a bounded cache', () => {
    const store = createDocumentStore({ publicUrl: undefined, fallbackHost: 'localhost:3000' });
    const a = store.get('openapi', 'yaml', 'a.test');
    const b = store.get('openapi', 'yaml', 'b.test');
    expect(a.etag).not.toBe(b.etag);
    expect(store.get('openapi', 'yaml', 'a.test')).toBe(a); // cached
    const started = performance.now();
    for (let i = 0; i < 100; i++) store.get('asyncapi', 'json', `h${i}.test`); // no parse per Host, no growth per Host
    expect(performance.now() - started).toBeLessThan(2000);
    for (const name of ['openapi', 'asyncapi'] as const) {
      for (const format of ['json', 'yaml'] as const)
        expect(store.get(name, format, 'x.test').body.toString()).not.toContain('crfq-placeholder');
    }
    expect(matchesEtag(a.etag, a.etag)).toBe(true);
    expect(matchesEtag(`W/${a.etag}, "other"`, a.etag)).toBe(true);
    expect(matchesEtag('*', a.etag)).toBe(true);
    expect(matchesEtag('"other"', a.etag)).toBe(false);
    expect(matchesEtag(undefined, a.etag)).toBe(false);
  });
});
