// Settings of the public face: PUBLIC_URL, the docs portal, CORS, and the SIWE domain derived from them.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

const PRIVY_VERIFICATION_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const PROD = {
  NODE_ENV: 'production',
  ALLOW_DEMO_PRICES: 'true',
  DATABASE_URL: 'postgres://x',
  OPERATOR_TOKEN: 'o'.repeat(16),
  SIWE_DOMAIN: 'app.example.com',
  PRIVY_APP_ID: 'a',
  PRIVY_VERIFICATION_KEY,
  ALLOW_DEMO_SETTLEMENT: 'true',
  RFQ_EIP712_SALT: `0x${'11'.repeat(32)}`,
};

describe('SIWE_DOMAIN default', () => {
  it('follows PORT, then PUBLIC_URL; an explicit SIWE_DOMAIN wins', () => {
    expect(loadConfig({}).siwe.domain).toBe('localhost:3000');
    expect(loadConfig({ PORT: '8080' }).siwe.domain).toBe('localhost:8080');
    expect(loadConfig({ PORT: '0' }).siwe.domain).toBe('localhost:3000');
    expect(loadConfig({ PORT: '8080', PUBLIC_URL: 'https://App.Example.com/' }).siwe.domain).toBe('app.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:4000' }).siwe.domain).toBe('localhost:4000');
    expect(loadConfig({ PORT: '8080', SIWE_DOMAIN: 'web.example.com' }).siwe.domain).toBe('web.example.com');
  });
});

describe('PUBLIC_URL and DOCS_ENABLED', () => {
  it('PUBLIC_URL is an http(s) URL kept without its trailing slash', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(() => loadConfig({ PUBLIC_URL: 'api.example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://api.example.com' })).toThrow(/PUBLIC_URL/);
  });
  it('the portal is on by default, also in production, and can be turned off', () => {
    expect(loadConfig({}).docsEnabled).toBe(true);
    expect(loadConfig({ DOCS_ENABLED: 'false' }).docsEnabled).toBe(false);
    expect(loadConfig({ DOCS_ENABLED: '0' }).docsEnabled).toBe(false);
    expect(() => loadConfig({ DOCS_ENABLED: 'no' })).toThrow(/DOCS_ENABLED/);
  });
});

describe('CORS_ORIGINS', () => {
  it('unset: any origin outside production, none in production', () => {
    expect(loadConfig({}).corsOrigins).toBe('*');
    expect(loadConfig({ NODE_ENV: 'test' }).corsOrigins).toBe('*');
    expect(loadConfig(PROD).corsOrigins).toEqual([]);
    expect(loadConfig({ ...PROD, CORS_ORIGINS: 'https://app.example.com' }).corsOrigins).toEqual(['https://app.example.com']);
  });
  it('`*`, `none` or a list of origins (lower-cased); anything else is a configuration error', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'none' }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://App.Example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(/CORS_ORIGINS: not origins/);
  });
});
