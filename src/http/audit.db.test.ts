// Medium tier: the operator audit trail on real PostgreSQL. The table refuses UPDATE, DELETE and TRUNCATE;
// a write run through ctx.audit commits or rolls back together with its row; a rejection leaves a row of
// its own; pages follow the keyset cursor newest first.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenAPIV3_1 } from 'openapi-types';
import { db } from '../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { listAudit } from '../domain/audit.js';
import { Conflict } from '../domain/errors.js';
import { createLogger } from '../logger.js';
import { createAuditedDispatch } from './audit.js';
import { createRequestContext } from './context.js';
import type { Auth } from './auth.js';
import type { Em } from '../db/orm.js';
import { inTransaction } from '../db/unit-of-work.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('audit');
  await sql`create table audit_probe (id text primary key)`.execute(db(t.orm.em.fork()));
});
afterAll(async () => t?.close());

const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: { '/probe': { post: { operationId: 'probeWrite', responses: { '201': { description: 'ok' }, '409': { description: 'no' } } } } },
} as unknown as OpenAPIV3_1.Document;
const fork = () => t.orm.em.fork();
const log = createLogger('silent');
const probes = async () => (await sql<{ id: string }>`select id from audit_probe`.execute(db(fork()))).rows.map((r) => r.id);
const rowsOf = async (requestId: string) => (await listAudit(fork(), { limit: 200 })).entries.filter((e) => e.requestId === requestId);

function call(
  handler: (ctx: ReturnType<typeof createRequestContext>) => Promise<{ status: number }>,
  auth: Auth = { kind: 'operator', name: 'alice' },
) {
  const requestId = randomUUID();
  const ctx = createRequestContext(fork, { log, auth, requestId });
  const dispatch = createAuditedDispatch(document, fork);
  const req = {
    operationId: 'probeWrite',
    params: {},
    query: {},
    body: { name: 'x', session_token: 's3cret' },
    contentType: 'application/json',
    headers: {},
  };
  const result = dispatch((_r, c) => handler(c), { ...req, method: 'POST', path: '/probe' }, ctx);
  return { requestId, result };
}

const insertProbe = (id: string) => async (tx: Em) => {
  await sql`insert into audit_probe (id) values (${id})`.execute(db(tx));
  return id;
};

describe('operator audit trail', () => {
  it('a write through ctx.audit commits with its row (in_transaction, success status, target, secrets redacted)', async () => {
    const id = randomUUID();
    const { requestId, result } = call(async (ctx) => {
      await ctx.audit.within(ctx.db, insertProbe(id), (v) => v);
      return { status: 201 };
    });
    await result;
    expect(await probes()).toContain(id);
    const rows = await rowsOf(requestId);
    expect(rows).toEqual([
      expect.objectContaining({
        operator: 'alice',
        operationId: 'probeWrite',
        method: 'POST',
        path: '/probe',
        target: id,
        status: 201,
        errorCode: null,
        inTransaction: true,
        body: { name: 'x', session_token: '[redacted]' },
      }),
    ]);
  });

  it('a write that fails inside the transaction leaves neither the change nor an in-transaction row, and one row with the error', async () => {
    const id = randomUUID();
    const { requestId, result } = call(async (ctx) => {
      await ctx.audit.within(ctx.db, async (tx) => {
        await insertProbe(id)(tx);
        throw new Conflict('PROBE_REFUSED', 'no');
      });
      return { status: 201 };
    });
    await expect(result).rejects.toThrow(Conflict);
    expect(await probes()).not.toContain(id);
    expect(await rowsOf(requestId)).toEqual([expect.objectContaining({ status: 409, errorCode: 'PROBE_REFUSED', inTransaction: false })]);
  });

  it('record() in a transaction the caller holds: a failure after it rolls back the change and its row', async () => {
    const id = randomUUID();
    const { requestId, result } = call(async (ctx) => {
      await inTransaction(ctx.db, async (tx) => {
        await insertProbe(id)(tx);
        await ctx.audit.record(tx, id);
        throw new Error('fails after the row was appended');
      });
      return { status: 201 };
    });
    await expect(result).rejects.toThrow(/fails after/);
    expect(await probes()).not.toContain(id);
    expect(await rowsOf(requestId)).toEqual([
      expect.objectContaining({ status: 500, errorCode: 'INTERNAL', inTransaction: false, target: null }),
    ]);
  });

  it('a user or anonymous request is not audited; ctx.audit then runs the write as is', async () => {
    const id = randomUUID();
    const { requestId, result } = call(
      async (ctx) => {
        await ctx.audit.within(ctx.db, insertProbe(id));
        return { status: 201 };
      },
      { kind: 'anonymous' },
    );
    await result;
    expect(await probes()).toContain(id);
    expect(await rowsOf(requestId)).toEqual([]);
  });

  it('UPDATE, DELETE and TRUNCATE are refused, for the table owner too', async () => {
    const { requestId, result } = call(async () => ({ status: 201 }));
    await result;
    expect(await rowsOf(requestId)).toHaveLength(1);
    const q = db(fork());
    await expect(sql`update operator_audit set operator = 'mallory' where request_id = ${requestId}`.execute(q)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from operator_audit where request_id = ${requestId}`.execute(q)).rejects.toThrow(/append-only/);
    await expect(sql`truncate operator_audit`.execute(q)).rejects.toThrow(/append-only/);
    expect(await rowsOf(requestId)).toEqual([expect.objectContaining({ operator: 'alice' })]);
  });

  it('pages newest first through the keyset cursor; rows written meanwhile do not shift later pages', async () => {
    for (let i = 0; i < 5; i++) await call(async () => ({ status: 201 })).result;
    const all = (await listAudit(fork(), { limit: 200 })).entries.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listAudit(fork(), { limit: 2, cursor });
      seen.push(...page.entries.map((e) => e.id));
      if (pages === 0) await call(async () => ({ status: 201 })).result; // newer than every page
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    await expect(listAudit(fork(), { limit: 2, cursor: 'forged.AAAAAAAAAAAAAAAAAAAAAA' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });
});
