// Contest images: operator upload (uploadPoolImage) and the public raw fetch (getPoolImageRaw).
// The framework already answered 401/403 (operator token), 415 (media type) and 413 (2 MiB) before these run.
import type { PoolImage } from '../../../generated/openapi/types.gen.js';
import { getImage, storeImage, type StoredImage } from '../../domain/contests/images.js';
import { NotFound, ValidationFailed } from '../../domain/errors.js';
import type { HandlersFor } from '../handler.js';

/** Images never change under an id. */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** A strong entity tag from the content hash (128 bits of it). */
export const etagOf = (image: Pick<StoredImage, 'sha256'>) => `"${image.sha256.slice(0, 32)}"`;

/**
 * If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` is ignored; `*` matches any existing
 * representation; a list matches when any of its tags does.
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function toPoolImage(image: StoredImage): PoolImage {
  return {
    image_id: image.imageId,
    content_type: image.contentType,
    size_bytes: image.bytes.length,
    url: `/v1/pool-images/${image.imageId}/raw`,
  };
}

export function poolImagesHandlers(): HandlersFor<'uploadPoolImage' | 'getPoolImageRaw'> {
  return {
    uploadPoolImage: async (req, { db, audit }) => {
      // The type says bytes (the body is required); an empty upload is still answered here, with 400.
      if (!Buffer.isBuffer(req.body)) {
        throw new ValidationFailed('the request body is empty; send the image bytes as the body', [
          { in: 'body', path: '', message: 'must not be empty' },
        ]);
      }
      const bytes = req.body;
      const image = await audit.within(
        db,
        (tx) => storeImage(tx, req.contentType, bytes),
        (i) => i.imageId,
      );
      return { status: 201, body: toPoolImage(image) };
    },
    getPoolImageRaw: async (req, { db }) => {
      const imageId = req.params.image_id;
      const image = await getImage(db, imageId);
      if (!image) {
        throw new NotFound(
          'IMAGE_NOT_FOUND',
          `no image ${imageId}: ids are the image_id of an upload or default-mentions, default-sports, default-culture`,
        );
      }
      const etag = etagOf(image);
      const headers = { ETag: etag, 'Cache-Control': IMAGE_CACHE_CONTROL };
      if (ifNoneMatchMatches(req.headers['if-none-match'], etag)) return { status: 304, headers };
      return { status: 200, raw: { data: image.bytes, contentType: image.contentType }, headers };
    },
  };
}
