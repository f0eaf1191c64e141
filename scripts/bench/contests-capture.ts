// bench:contests: the service's own SQL, captured by running the domain functions on a recording Em stand-in,
// and replayed directly on one pg connection.
import pg from 'pg';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import type { Em } from '../../src/db/orm.js';
import type { DB } from '../../src/db/schema.js';

/** MikroORM `?` placeholders to pg `$n` (the service's SQL here has no `?` inside literals). */
const toPg = (sql: string) => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};

export interface Captured {
  text: string;
  values: unknown[];
}

/**
 * An Em stand-in that runs every statement directly on `client` and records its SQL + parameters: raw SQL
 * (execute(), identity) and the repositories' Kysely queries (getKysely(), the same compiled text as the
 * snapshots in src/queries/).
 */
export function recordingEm(client: pg.ClientBase): { em: Em; queries: Captured[] } {
  const queries: Captured[] = [];
  const onClient = { query: (text: string, params: unknown[]) => client.query(text, params), release() {} };
  const pool = { connect: async () => onClient, end: async () => undefined } as unknown as PostgresPool;
  const kysely = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      queries.push({ text: e.query.sql, values: [...e.query.parameters] });
    },
  });
  const em = {
    async execute(sql: string, params: unknown[] = []) {
      const q = { text: toPg(sql), values: params };
      queries.push(q);
      return (await client.query(q)).rows;
    },
    getKysely: () => kysely,
  };
  return { em: em as unknown as Em, queries };
}

export async function capture(client: pg.ClientBase, fn: (em: Em) => Promise<unknown>): Promise<Captured[]> {
  const r = recordingEm(client);
  await fn(r.em);
  return r.queries;
}

/** Runs `qs` in order on `client`; the rows of each. */
export async function replay(client: pg.ClientBase, qs: Captured[]) {
  const out: any[][] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const q of qs) out.push((await client.query(q)).rows);
  return out;
}
