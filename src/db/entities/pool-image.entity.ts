import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** An operator-uploaded contest image (PNG, JPEG or WebP, at most 2 MiB); never changes under its id. */
export const PoolImageSchema = defineEntity({
  name: 'PoolImage',
  tableName: 'pool_images',
  properties: {
    id: p.uuid().primary(),
    contentType: p.enum(['image/png', 'image/jpeg', 'image/webp'] as const).fieldName('content_type'),
    bytes: p.uint8array(),
    sha256: p.text(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});

/** Keys the service signs opaque values with (lobby cursors), one random key per database. */
export const ServiceKeySchema = defineEntity({
  name: 'ServiceKey',
  tableName: 'service_keys',
  properties: {
    name: p.text().primary(),
    key: p.uint8array(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});
