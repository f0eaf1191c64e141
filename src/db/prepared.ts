// Named (prepared) statements for the ORM's PostgreSQL pool. Kysely sends every statement unnamed, so
// PostgreSQL parses, analyses and plans it again on each execution; for the service's larger statements
// (the RFQ close CTE, the ledger lock, the postings) planning alone was 0.1-0.3 ms each. A named statement
// is parsed once per connection and, after five executions, PostgreSQL may keep a generic plan when its
// estimated cost is no worse than the custom ones (plan_cache_mode auto), so it stops planning it.
// Measured (scripts/bench/rfq-close-profile.ts, one RFQ created, quoted and closed in sequence): PostgreSQL's
// CPU per RFQ 6.5-7.2 ms unnamed against 3.7-3.8 ms named.
//
// Only parameterised statements are named (begin, commit and DDL stay on the simple protocol). Names are
// given per distinct SQL text in order of first use, at most `max` per process, so a text that varies with
// its input (an IN list of changing length) cannot grow the caches of pg or of the server without bound:
// past the limit a new text runs unnamed, as before. DATABASE_PREPARED_STATEMENTS=0 turns this off (e.g.
// behind a pooler in transaction mode that does not track prepared statements).
import { createRequire } from 'node:module';
import type pg from 'pg';

// MikroORM's PostgreSQL driver brings its own copy of pg: the pool it builds must get that copy's Client.
const mikroPg = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'))('pg') as typeof pg;

/** How statement texts map to names: one registry per pool (per ORM), shared by its connections. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  constructor(readonly max: number) {}

  /** The name of `text`, or undefined when it should run unnamed (no parameters, or the registry is full). */
  nameOf(text: string, values: unknown): string | undefined {
    if (!Array.isArray(values) || values.length === 0) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) {
      name = `crfq_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/** A pg Client class (of MikroORM's copy of pg) that runs parameterised statements as named ones. */
export function preparingClient(names: StatementNames): typeof pg.Client {
  const query = mikroPg.Client.prototype.query as unknown as Query;
  class PreparingClient extends mikroPg.Client {}
  (PreparingClient.prototype as unknown as { query: Query }).query = function (this: pg.Client, ...args: unknown[]) {
    const [text, values] = args;
    if (typeof text === 'string') {
      const name = names.nameOf(text, values);
      if (name !== undefined) return query.call(this, { name, text, values }, ...args.slice(2));
    }
    return query.apply(this, args);
  };
  return PreparingClient;
}
