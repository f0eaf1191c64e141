import { p } from '@mikro-orm/core';

/**
 * A timestamptz column as it leaves the drivers: MikroORM's type parsers keep timestamptz as PostgreSQL's
 * text on pg and PGlite alike, so the Kysely type says string (write ISO-8601 strings or SQL expressions).
 */
export const timestamptz = () => p.datetime().$type<string>();
