// Contest images through the generated client: every documented status of uploadPoolImage and
// getPoolImageRaw except 500/503 (pending); the framework cases of errors.test.ts also cover upload's
// 401/413/415 and the raw fetch's 400. Every response is checked against the spec.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, getPoolImageRaw, uploadPoolImage } from '../generated/openapi/sdk.gen.ts';
import { encodePng } from '../src/domain/contests/images.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { expectErrorBody, startContractService, type ContractService } from './harness.ts';

const PNG = encodePng(4, 4, (x, y) => [x * 60, y * 60, 128]);
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('images', { env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

const asBlob = (bytes: Uint8Array, type: string) => new Blob([new Uint8Array(bytes)], { type });
const bytesOf = async (blob: unknown) => Buffer.from(await (blob as Blob).arrayBuffer());

async function upload(bytes: Uint8Array, type: string) {
  const op = svc.client({ token: svc.operatorToken });
  return op.run(uploadPoolImage({ client: op.client, body: asBlob(bytes, type), headers: { 'Content-Type': type } }), { status: 201 });
}

describe('uploadPoolImage', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/webp', WEBP],
  ] as const)('201 %s: PoolImage with the url getPoolImageRaw serves it at', async (type, bytes) => {
    const { data } = await upload(bytes, type);
    expect(data).toEqual({
      image_id: expect.any(String),
      content_type: type,
      size_bytes: bytes.length,
      url: `/v1/pool-images/${data!.image_id}/raw`,
    });
  });

  it('400 VALIDATION_FAILED: bytes that are not the declared type, and an empty body', async () => {
    const op = svc.client({ token: svc.operatorToken });
    const { checked } = await op.run(
      uploadPoolImage({ client: op.client, body: asBlob(PNG, 'image/webp'), headers: { 'Content-Type': 'image/webp' } }),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
      },
    );
    expectErrorBody(checked.body);
    expect((checked.body as { details: unknown[] }).details).toContainEqual(expect.objectContaining({ in: 'body', path: '' }));
    const empty = await svc.call(
      'uploadPoolImage',
      { token: svc.operatorToken, rawBody: new Uint8Array(0), contentType: 'image/png' },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expectErrorBody(empty.body);
  });

  it('403 FORBIDDEN: a user session on the operator route', async () => {
    const anon = svc.client();
    const { data: session } = await anon.run(
      createSession({
        client: anon.client,
        body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, randomWallet().address) },
      }),
      { status: 200 },
    );
    const user = svc.client({ token: session!.session_token });
    const { checked } = await user.run(uploadPoolImage({ client: user.client, body: asBlob(PNG, 'image/png') }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    expectErrorBody(checked.body);
  });
});

describe('getPoolImageRaw', () => {
  it('200: the uploaded bytes, immutable for a year, with the ETag; 304 without a body for that ETag', async () => {
    const { data: image } = await upload(JPEG, 'image/jpeg');
    const api = svc.client();
    const { data, checked } = await api.run(getPoolImageRaw({ client: api.client, path: { image_id: image!.image_id } }), { status: 200 });
    expect(checked.headers.get('content-type')).toBe('image/jpeg');
    expect((await bytesOf(data)).equals(JPEG)).toBe(true);
    expect(checked.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = checked.headers.get('etag')!;
    expect(etag).toBe(`"${createHash('sha256').update(JPEG).digest('hex').slice(0, 32)}"`);

    const revalidated = await api.run(
      getPoolImageRaw({ client: api.client, path: { image_id: image!.image_id }, headers: { 'If-None-Match': etag } }),
      { status: 304 },
    );
    expect(revalidated.checked.text).toBe('');
    expect(revalidated.checked.headers.get('etag')).toBe(etag);
  });

  it('200: each category default is a PNG', async () => {
    const api = svc.client();
    for (const category of ['mentions', 'sports', 'culture']) {
      const { data, checked } = await api.run(getPoolImageRaw({ client: api.client, path: { image_id: `default-${category}` } }), {
        status: 200,
      });
      expect(checked.headers.get('content-type')).toBe('image/png');
      expect((await bytesOf(data)).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    }
  });

  it('404 IMAGE_NOT_FOUND: an id that was never uploaded', async () => {
    const api = svc.client();
    const { checked } = await api.run(getPoolImageRaw({ client: api.client, path: { image_id: randomUUID() } }), {
      status: 404,
      code: 'IMAGE_NOT_FOUND',
    });
    expectErrorBody(checked.body);
    await api.run(getPoolImageRaw({ client: api.client, path: { image_id: 'default-politics' } }), {
      status: 404,
      code: 'IMAGE_NOT_FOUND',
    });
  });
});
