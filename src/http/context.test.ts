import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Em } from '../db/orm.js';
import { createRequestContext } from './context.js';

describe('request context', () => {
  const log = pino({ level: 'silent' });

  it('forks the entity manager on first use of db, once per request, and never when unused', () => {
    let forks = 0;
    const fork = () => ({ id: ++forks }) as unknown as Em;
    const unused = createRequestContext(fork, { log, auth: { kind: 'anonymous' }, requestId: 'r1' });
    expect(unused.requestId).toBe('r1');
    expect(forks).toBe(0);

    const ctx = createRequestContext(fork, { log, auth: { kind: 'operator', name: 'default' }, requestId: 'r2' });
    const first = ctx.db;
    expect(ctx.db).toBe(first);
    expect(forks).toBe(1);
    expect(createRequestContext(fork, { log, auth: { kind: 'operator', name: 'default' }, requestId: 'r3' }).db).not.toBe(first);
    expect(forks).toBe(2);
  });

  it('makes the child logger on first use of log, once, and never when unused', () => {
    let made = 0;
    const logOf = () => (made++, log);
    const fork = () => ({}) as unknown as Em;
    const unused = createRequestContext(fork, { log: logOf, auth: { kind: 'anonymous' }, requestId: 'r4' });
    expect(unused.auth.kind).toBe('anonymous');
    expect(made).toBe(0);
    const ctx = createRequestContext(fork, { log: logOf, auth: { kind: 'anonymous' }, requestId: 'r5' });
    expect(ctx.log).toBe(log);
    expect(ctx.log).toBe(log);
    expect(made).toBe(1);
  });
});
