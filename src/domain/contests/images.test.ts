import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Em } from '../../db/orm.js';
import { CATEGORIES, defaultImage, defaultImageId, getImage, imageExists, imageUrl, sniffImageType, storeImage } from './images.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a464946', 'hex');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

/** An entity manager that must not be used: the answer has to come without the database. */
const noDb = new Proxy({}, { get: () => () => Promise.reject(new Error('the database was queried')) }) as unknown as Em;

interface Chunk {
  type: string;
  data: Buffer;
  crcOk: boolean;
}

function readPng(bytes: Buffer): { chunks: Chunk[]; width: number; height: number; pixels: Buffer } {
  expect(sniffImageType(bytes)).toBe('image/png');
  const chunks: Chunk[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const typeAndData = bytes.subarray(at + 4, at + 8 + length);
    chunks.push({
      type: typeAndData.toString('latin1', 0, 4),
      data: typeAndData.subarray(4),
      crcOk: crc32(typeAndData) === bytes.readUInt32BE(at + 8 + length),
    });
    at += 12 + length;
  }
  const ihdr = chunks[0]!.data;
  const idat = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  return { chunks, width: ihdr.readUInt32BE(0), height: ihdr.readUInt32BE(4), pixels: inflateSync(idat) };
}

describe('sniffImageType', () => {
  it('recognises PNG, JPEG and WebP by their magic bytes', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(WEBP)).toBe('image/webp');
  });

  it('rejects other files, truncated signatures and RIFF files that are not WebP', () => {
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
    expect(sniffImageType(Buffer.from('GIF89a'))).toBeNull();
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImageType(PNG.subarray(0, 7))).toBeNull();
    expect(sniffImageType(JPEG.subarray(0, 2))).toBeNull();
    expect(sniffImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]))).toBeNull();
    expect(sniffImageType(WEBP.subarray(0, 11))).toBeNull();
  });
});

describe('default images', () => {
  it.each(CATEGORIES)('default-%s is a valid 64x64 RGB PNG: signature, IHDR first, IEND last, every CRC right', (category) => {
    const image = defaultImage(category);
    expect(image.imageId).toBe(`default-${category}`);
    expect(image.contentType).toBe('image/png');
    const png = readPng(image.bytes);
    expect(png.chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(png.chunks.every((c) => c.crcOk)).toBe(true);
    expect(png.width).toBe(64);
    expect(png.height).toBe(64);
    expect([...png.chunks[0]!.data.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
    expect(png.pixels.length).toBe(64 * (1 + 64 * 3));
    expect(image.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the three categories look different (top-left pixels differ) and hash differently', () => {
    const firstPixel = (category: (typeof CATEGORIES)[number]) =>
      readPng(defaultImage(category).bytes).pixels.subarray(1, 4).toString('hex');
    expect(new Set(CATEGORIES.map(firstPixel)).size).toBe(3);
    expect(new Set(CATEGORIES.map((c) => defaultImage(c).sha256)).size).toBe(3);
  });

  it('getImage and imageExists answer the default ids without the database', async () => {
    for (const category of CATEGORIES) {
      expect((await getImage(noDb, defaultImageId(category)))?.bytes.equals(defaultImage(category).bytes)).toBe(true);
      expect(await imageExists(noDb, defaultImageId(category))).toBe(true);
    }
  });
});

describe('imageExists and getImage on malformed ids', () => {
  it.each(['', 'default-politics', 'Default-sports', 'not-a-uuid', '../etc/passwd', "x' or '1'='1", '3f6c2a9e8b1d4c7a9e2f5a1b7c3d9e01'])(
    '%j is false / null without a query and without throwing',
    async (id) => {
      expect(await imageExists(noDb, id)).toBe(false);
      expect(await getImage(noDb, id)).toBeNull();
    },
  );
});

describe('storeImage refuses before touching the database', () => {
  it('an empty body, bytes of another type, and an unknown type are 400 VALIDATION_FAILED', async () => {
    await expect(storeImage(noDb, 'image/png', Buffer.alloc(0))).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/empty/),
    });
    await expect(storeImage(noDb, 'image/png', JPEG)).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/image\/jpeg/),
    });
    await expect(storeImage(noDb, 'image/webp', Buffer.from('hello world!'))).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ in: 'body', path: '' })],
    });
    await expect(storeImage(noDb, 'image/gif', Buffer.from('GIF89a'))).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('imageUrl', () => {
  it('is the raw route of the image, or of the category default when there is none', () => {
    expect(imageUrl('0b8e6f52-2c1d-4d3e-9f4a-5b6c7d8e9f01', 'sports')).toBe('/v1/pool-images/0b8e6f52-2c1d-4d3e-9f4a-5b6c7d8e9f01/raw');
    expect(imageUrl(null, 'mentions')).toBe('/v1/pool-images/default-mentions/raw');
    expect(imageUrl(null, 'culture')).toMatch(/^\/v1\/pool-images\/[A-Za-z0-9_-]+\/raw$/);
  });
});
