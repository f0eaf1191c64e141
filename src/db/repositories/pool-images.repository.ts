// Operator-uploaded contest images. The bytes travel as a bytea parameter (never in the SQL text).
import type { Db } from '../schema.js';

export class PoolImagesRepository {
  constructor(private readonly db: Db) {}

  async insert(image: {
    id: string;
    contentType: 'image/png' | 'image/jpeg' | 'image/webp';
    bytes: Buffer;
    sha256: string;
  }): Promise<void> {
    await this.db
      .insertInto('pool_images')
      .values({ id: image.id, content_type: image.contentType, bytes: image.bytes, sha256: image.sha256 })
      .execute();
  }

  find(id: string) {
    return this.db.selectFrom('pool_images').select(['content_type', 'bytes', 'sha256']).where('id', '=', id).executeTakeFirst();
  }

  async exists(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('pool_images')
      .select((eb) => eb.lit(1).as('n'))
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }
}
