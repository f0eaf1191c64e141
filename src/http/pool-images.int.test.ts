// Contest images over HTTP against the real service on PostgreSQL: operator upload, the public raw
// fetch with long-lived caching and ETag revalidation, and every refusal the operator can meet.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../testing/service-process.js';
import type { TestPrivy } from '../testing/identity.js';
import { newUserSession } from '../testing/money.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { encodePng } from '../domain/contests/images.js';

let OPERATOR_TOKEN: string;
const LIMIT = 2 * 1024 * 1024;
// Real images (a browser decodes both: see e2e/pool-images.spec.ts for the uploaded ones).
const PNG = encodePng(5, 3, (x, y) => [x * 50, y * 100, 200]);
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;

beforeAll(async () => {
  t = await startTestService('images');
  ({ svc, privy, sql, operatorToken: OPERATOR_TOKEN } = t);
});

afterAll(async () => {
  await t?.stop();
});

async function upload(bytes: Uint8Array, contentType: string | undefined, token: string | undefined = OPERATOR_TOKEN) {
  const headers: Record<string, string> = {};
  if (contentType) headers['Content-Type'] = contentType;
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${svc.baseUrl}/v1/admin/pool-images`, { method: 'POST', headers, body: new Uint8Array(bytes) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function fetchRaw(id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}/v1/pool-images/${id}/raw`, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const imageCount = async () => Number((await sql.query('select count(*)::int as n from pool_images')).rows[0].n);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function expectError(body: unknown, code: string) {
  expect(Object.keys(body as object).sort()).toEqual(['code', 'details', 'error']);
  expect((body as { code: string }).code).toBe(code);
}

describe('upload and fetch back', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/webp', WEBP],
  ] as const)('%s: 201 with its id and url; the url serves the same bytes and type, cacheable for a year', async (type, bytes) => {
    const res = await upload(bytes, type);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['content_type', 'image_id', 'size_bytes', 'url']);
    expect(res.body.image_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.body).toMatchObject({ content_type: type, size_bytes: bytes.length, url: `/v1/pool-images/${res.body.image_id}/raw` });

    const got = await fetch(`${svc.baseUrl}${res.body.url}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe(type);
    expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(got.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(got.headers.get('etag')).toBe(`"${sha256(bytes).slice(0, 32)}"`);
    expect(got.headers.get('x-request-id')).toBeTruthy();

    const row = (
      await sql.query('select content_type, sha256, octet_length(bytes)::int as size from pool_images where id = $1', [res.body.image_id])
    ).rows[0];
    expect(row).toEqual({ content_type: type, sha256: sha256(bytes), size: bytes.length });
  });

  it('exactly 2 MiB is accepted and served whole; one byte more is 413 PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const big = Buffer.alloc(LIMIT, 0x5a);
    PNG.copy(big, 0, 0, 8);
    const ok = await upload(big, 'image/png');
    expect(ok.status).toBe(201);
    expect(ok.body.size_bytes).toBe(LIMIT);
    const back = await fetchRaw(ok.body.image_id);
    expect(back.bytes.equals(big)).toBe(true);

    const before = await imageCount();
    const over = await upload(Buffer.concat([big, Buffer.from([0])]), 'image/png');
    expect(over.status).toBe(413);
    expectError(over.body, 'PAYLOAD_TOO_LARGE');
    expect(over.body.details).toEqual({ limit_bytes: LIMIT });
    expect(await imageCount()).toBe(before);
  });
});

describe('refused uploads store nothing', () => {
  it('bytes whose signature is not the declared type are 400 VALIDATION_FAILED naming what was found', async () => {
    const before = await imageCount();
    const asJpeg = await upload(PNG, 'image/jpeg');
    expect(asJpeg.status).toBe(400);
    expectError(asJpeg.body, 'VALIDATION_FAILED');
    expect(asJpeg.body.error).toMatch(/image\/jpeg.*image\/png/);
    expect(asJpeg.body.details).toEqual([expect.objectContaining({ in: 'body', path: '' })]);

    const text = await upload(Buffer.from('this is not an image at all'), 'image/webp');
    expect(text.status).toBe(400);
    expectError(text.body, 'VALIDATION_FAILED');
    expect(text.body.error).toMatch(/no PNG, JPEG or WebP signature/);
    expect(await imageCount()).toBe(before);
  });

  it('an empty body is 400 VALIDATION_FAILED', async () => {
    const res = await upload(new Uint8Array(0), 'image/png');
    expect(res.status).toBe(400);
    expectError(res.body, 'VALIDATION_FAILED');
    expect(res.body.error).toMatch(/empty/);
  });

  it('Content-Type text/plain (or none) is 415 UNSUPPORTED_MEDIA_TYPE listing the accepted types', async () => {
    const res = await upload(PNG, 'text/plain');
    expect(res.status).toBe(415);
    expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.details).toEqual({ accepted: ['image/png', 'image/jpeg', 'image/webp'] });
    expect((await upload(PNG, undefined)).status).toBe(415);
  });

  it('no token is 401 UNAUTHORIZED; a user session is 403 FORBIDDEN', async () => {
    const before = await imageCount();
    const anonymous = await upload(PNG, 'image/png', '');
    expect(anonymous.status).toBe(401);
    expectError(anonymous.body, 'UNAUTHORIZED');
    const user = await newUserSession(svc.baseUrl, privy);
    const forbidden = await upload(PNG, 'image/png', user.token);
    expect(forbidden.status).toBe(403);
    expectError(forbidden.body, 'FORBIDDEN');
    expect(await imageCount()).toBe(before);
  });
});

describe('revalidation with If-None-Match', () => {
  it('the ETag (alone, in a list, weak, or *) is 304 with the ETag and no body; another tag is 200', async () => {
    const { body } = await upload(PNG, 'image/png');
    const first = await fetchRaw(body.image_id);
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `"0000", ${etag}`, `W/${etag}`, '*']) {
      const res = await fetchRaw(body.image_id, { 'If-None-Match': header });
      expect(res.status, header).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.bytes.length).toBe(0);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    const stale = await fetchRaw(body.image_id, { 'If-None-Match': '"0123456789abcdef0123456789abcdef"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.equals(PNG)).toBe(true);
  });

  it('a default image revalidates the same way', async () => {
    const first = await fetchRaw('default-sports');
    const res = await fetchRaw('default-sports', { 'If-None-Match': first.headers.get('etag')! });
    expect(res.status).toBe(304);
  });
});

describe('default and unknown images', () => {
  it('default-mentions, default-sports and default-culture are distinct PNGs', async () => {
    const etags = new Set<string>();
    for (const category of ['mentions', 'sports', 'culture']) {
      const res = await fetchRaw(`default-${category}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      etags.add(res.headers.get('etag')!);
    }
    expect(etags.size).toBe(3);
  });

  it('an unknown id is 404 IMAGE_NOT_FOUND (also with If-None-Match: *); a malformed one is 400', async () => {
    for (const id of [randomUUID(), 'default-politics', 'abc']) {
      const res = await fetch(`${svc.baseUrl}/v1/pool-images/${id}/raw`);
      expect(res.status, id).toBe(404);
      expectError(await res.json(), 'IMAGE_NOT_FOUND');
    }
    expect((await fetchRaw(randomUUID(), { 'If-None-Match': '*' })).status).toBe(404);
    const bad = await fetch(`${svc.baseUrl}/v1/pool-images/not.valid!/raw`);
    expect(bad.status).toBe(400);
    expectError(await bad.json(), 'VALIDATION_FAILED');
  });
});
