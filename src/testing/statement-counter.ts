// Counts every SQL statement this process sends, through every copy of pg (MikroORM may bring its own): the
// fill path's cost test (src/domain/rfq/fill-path.db.test.ts) and the benchmarks that profile statements
// (scripts/bench/rfq-close-profile.ts, scripts/bench/user-channel-statements.ts). Patches Client.prototype.query
// once per process, when first called.
import { createRequire } from 'node:module';
import pg from 'pg';

let statements = 0;
let onText: ((text: string) => void) | undefined;
let installed = false;

/** The statements sent so far; `texts` receives each statement's text (one line, at most 140 characters). */
export function countStatements(texts?: (text: string) => void): () => number {
  onText = texts;
  if (!installed) {
    installed = true;
    const mikroPg = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'))('pg') as typeof pg;
    for (const Client of new Set([pg.Client, mikroPg.Client])) {
      const original = Client.prototype.query;
      (Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...a: unknown[]) {
        statements++;
        if (onText) {
          const q = a[0] as string | { text?: string };
          onText((typeof q === 'string' ? q : (q.text ?? '')).replace(/\s+/g, ' ').slice(0, 140));
        }
        return (original as (...x: unknown[]) => unknown).apply(this, a);
      };
    }
  }
  return () => statements;
}
