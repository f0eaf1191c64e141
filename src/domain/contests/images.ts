// Contest images (docs/getting-started.md, Contest images): operator uploads in pool_images, and one built-in
// image per category so that every contest's image_url works. Images never change under an id, which
// is what lets the HTTP layer cache them forever and revalidate by the sha256.
import { createHash, randomUUID } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Em } from '../../db/orm.js';
import { ValidationFailed } from '../errors.js';
import { repos } from '../../db/repos.js';

export const CATEGORIES = ['mentions', 'sports', 'culture'] as const;
export type Category = (typeof CATEGORIES)[number];

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** The database check on pool_images.bytes; the HTTP layer answers 413 before reaching it. */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

export interface StoredImage {
  imageId: string;
  contentType: ImageType;
  bytes: Buffer;
  /** Lower-case hex sha256 of the bytes. */
  sha256: string;
}

export function defaultImageId(category: Category): string {
  return `default-${category}`;
}

export function imageUrl(imageId: string | null, category: Category): string {
  return `/v1/pool-images/${imageId ?? defaultImageId(category)}/raw`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------- sniffing

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type the bytes' magic number announces, or null when it is none of the accepted ones. */
export function sniffImageType(bytes: Buffer): ImageType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

// ---------------------------------------------------------------- default images

type Rgb = readonly [number, number, number];

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A truecolour (8-bit RGB, no interlace) PNG of `pixel(x, y)`. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    raw[y * stride] = 0; // filter type None
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * stride + 1 + x * 3);
  }
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const DEFAULT_SIZE = 64;
/** Two colours per category (top-left to bottom-right), distinct at a glance. */
const PALETTE: Record<Category, [Rgb, Rgb]> = {
  mentions: [
    [124, 58, 237],
    [59, 130, 246],
  ],
  sports: [
    [22, 163, 74],
    [202, 138, 4],
  ],
  culture: [
    [219, 39, 119],
    [249, 115, 22],
  ],
};

function gradient([from, to]: [Rgb, Rgb]): Buffer {
  const span = 2 * (DEFAULT_SIZE - 1);
  return encodePng(DEFAULT_SIZE, DEFAULT_SIZE, (x, y) => {
    const t = (x + y) / span;
    return [0, 1, 2].map((i) => Math.round(from[i]! + (to[i]! - from[i]!) * t)) as unknown as Rgb;
  });
}

const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const DEFAULTS: ReadonlyMap<string, StoredImage> = new Map(
  CATEGORIES.map((category) => {
    const bytes = gradient(PALETTE[category]);
    const image: StoredImage = { imageId: defaultImageId(category), contentType: 'image/png', bytes, sha256: sha256Hex(bytes) };
    return [image.imageId, image] as const;
  }),
);

/** The built-in image of a category (a 64x64 PNG). */
export function defaultImage(category: Category): StoredImage {
  return DEFAULTS.get(defaultImageId(category))!;
}

// ---------------------------------------------------------------- storage

/** Stores an operator's image after checking that the bytes are an image of the declared type. */
export async function storeImage(em: Em, contentType: string, bytes: Buffer): Promise<StoredImage> {
  const declared = IMAGE_TYPES.find((t) => t === contentType);
  if (!declared) {
    throw new ValidationFailed(`Content-Type ${contentType} is not an accepted image type; send ${IMAGE_TYPES.join(', ')}`, [
      { in: 'header', path: '/content-type', message: `must be one of: ${IMAGE_TYPES.join(', ')}` },
    ]);
  }
  if (bytes.length === 0) {
    throw new ValidationFailed('the request body is empty; send the image bytes as the body', [
      { in: 'body', path: '', message: 'must not be empty' },
    ]);
  }
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new ValidationFailed(`the image is larger than ${MAX_IMAGE_BYTES} bytes`, [
      { in: 'body', path: '', message: `must be at most ${MAX_IMAGE_BYTES} bytes` },
    ]);
  }
  const sniffed = sniffImageType(bytes);
  if (sniffed !== declared) {
    const found = sniffed ? `a ${sniffed} image` : 'no PNG, JPEG or WebP signature';
    throw new ValidationFailed(`the body is not ${declared}: its first bytes show ${found}; send the Content-Type that matches the file`, [
      {
        in: 'body',
        path: '',
        message: `is not a ${declared} image (found ${found}; first bytes ${bytes.subarray(0, 12).toString('hex')})`,
      },
    ]);
  }
  const image: StoredImage = { imageId: randomUUID(), contentType: declared, bytes, sha256: sha256Hex(bytes) };
  await repos(em).poolImages.insert({ id: image.imageId, contentType: declared, bytes, sha256: image.sha256 });
  return image;
}

/** A default image or an uploaded one; null for an unknown or malformed id. */
export async function getImage(em: Em, imageId: string): Promise<StoredImage | null> {
  const builtIn = DEFAULTS.get(imageId);
  if (builtIn) return builtIn;
  if (!UUID.test(imageId)) return null;
  const row = await repos(em).poolImages.find(imageId.toLowerCase());
  if (!row) return null;
  // Buffer on pg, Uint8Array on PGlite.
  const bytes = Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  return { imageId: imageId.toLowerCase(), contentType: row.content_type, bytes, sha256: row.sha256 };
}

/** Whether a contest may name this image: a default id, or an uploaded image that exists. Never throws on a malformed id. */
export async function imageExists(em: Em, imageId: string): Promise<boolean> {
  if (DEFAULTS.has(imageId)) return true;
  if (typeof imageId !== 'string' || !UUID.test(imageId)) return false;
  return repos(em).poolImages.exists(imageId.toLowerCase());
}
