// A structural pg.Pool over one in-process PGlite instance, so BullMQ's PostgreSQL backend can share
// the embedded database with MikroORM. BullMQ's tables live in their own schema; PGlite has a single
// session, so every BullMQ statement runs in a short exclusive transaction with SET LOCAL search_path
// and can never see (or leak into) the application's search_path or transactions.
import { EventEmitter } from 'node:events';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { PgPool, PgPoolClient, PgQueryResult, PgNotification } from 'bullmq';

type Queryable = Pick<Transaction, 'query' | 'exec'>;

const TX_CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|END|ROLLBACK)\b/i;
const LISTEN = /^\s*(UN)?LISTEN\s+("?[\w$]+"?|\*)\s*;?\s*$/i;

async function run(q: Queryable, text: string, params?: readonly unknown[]): Promise<PgQueryResult> {
  if (!params || params.length === 0) {
    // exec accepts several statements; BullMQ's migrations send scripts.
    const results = await q.exec(text);
    const last = results.at(-1);
    return { rows: (last?.rows ?? []) as never[], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
  }
  const r = await q.query(text, params as unknown[]);
  return { rows: r.rows as never[], rowCount: r.affectedRows ?? r.rows.length };
}

export class PglitePool extends EventEmitter implements PgPool {
  readonly options = { keepAlive: true };
  private readonly unsubscribers = new Set<() => void>();
  private ended = false;

  constructor(
    readonly db: PGlite,
    readonly schema: string,
  ) {
    super();
  }

  private quotedSchema(): string {
    return `"${this.schema.replace(/"/g, '""')}"`;
  }

  async query<R = unknown>(text: string, params?: readonly unknown[]): Promise<PgQueryResult<R>> {
    if (this.ended) throw new Error('pool has ended');
    const listen = LISTEN.exec(text);
    if (listen) return this.listen(listen) as Promise<PgQueryResult<R>>;
    return this.db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL search_path TO ${this.quotedSchema()}, public`);
      return run(tx, text, params);
    }) as Promise<PgQueryResult<R>>;
  }

  private async listen(m: RegExpExecArray): Promise<PgQueryResult> {
    // LISTEN/UNLISTEN are session-wide; PGlite reports notifications through onNotification (below).
    await this.db.exec(m[0]);
    return { rows: [], rowCount: 0 };
  }

  async connect(): Promise<PgPoolClient> {
    if (this.ended) throw new Error('pool has ended');
    const client = new PgliteClient(this);
    this.emit('connect', client);
    return client;
  }

  /** Registers a notification listener for one client; returns its remover. */
  subscribe(fn: (msg: PgNotification) => void): () => void {
    const off = this.db.onNotification((channel, payload) => fn({ channel, payload, processId: 0 }));
    this.unsubscribers.add(off);
    return () => {
      off();
      this.unsubscribers.delete(off);
    };
  }

  async end(): Promise<void> {
    this.ended = true;
    for (const off of this.unsubscribers) off();
    this.unsubscribers.clear();
  }
}

/** A checked-out "connection": BEGIN..COMMIT map onto one PGlite exclusive transaction. */
class PgliteClient extends EventEmitter implements PgPoolClient {
  private tx: { q: Transaction; commit: () => void; rollback: (e: Error) => void; done: Promise<void> } | undefined;
  private offNotification: (() => void) | undefined;

  constructor(private readonly pool: PglitePool) {
    super();
    this.on('newListener', (event: string) => {
      if (event === 'notification' && !this.offNotification) {
        this.offNotification = this.pool.subscribe((msg) => this.emit('notification', msg));
      }
    });
  }

  async query<R = unknown>(text: string, params?: readonly unknown[]): Promise<PgQueryResult<R>> {
    const control = TX_CONTROL.exec(text)?.[1]?.toUpperCase();
    if (control === 'BEGIN' || control === 'START TRANSACTION') {
      await this.begin();
      return { rows: [], rowCount: 0 };
    }
    if (control === 'COMMIT' || control === 'END' || control === 'ROLLBACK') {
      const tx = this.tx;
      this.tx = undefined;
      if (tx) {
        if (control === 'ROLLBACK') tx.rollback(new RollbackSignal());
        else tx.commit();
        await tx.done;
      }
      return { rows: [], rowCount: 0 };
    }
    if (this.tx) return run(this.tx.q, text, params) as Promise<PgQueryResult<R>>;
    return this.pool.query<R>(text, params);
  }

  private async begin(): Promise<void> {
    let ready!: (tx: Transaction) => void;
    const started = new Promise<Transaction>((r) => (ready = r));
    let commit!: () => void;
    let rollback!: (e: Error) => void;
    const outcome = new Promise<void>((res, rej) => {
      commit = res;
      rollback = rej;
    });
    const schema = `"${this.pool.schema.replace(/"/g, '""')}"`;
    const done = this.pool.db
      .transaction(async (tx) => {
        await tx.exec(`SET LOCAL search_path TO ${schema}, public`);
        ready(tx);
        await outcome;
      })
      .then(
        () => undefined,
        (err: unknown) => {
          if (!(err instanceof RollbackSignal)) throw err;
        },
      );
    const q = await Promise.race([started, done.then(() => Promise.reject(new Error('transaction ended before it began')))]);
    this.tx = { q, commit, rollback, done };
  }

  release(): void {
    if (this.tx) this.tx.rollback(new RollbackSignal());
    this.tx = undefined;
    this.offNotification?.();
    this.offNotification = undefined;
    this.removeAllListeners();
  }
}

class RollbackSignal extends Error {}
