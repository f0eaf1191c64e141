import { describe, expect, it } from 'vitest';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { toErrorResponse, validationFailed } from './errors.js';
import { Conflict, Unauthorized } from '../domain/errors.js';

describe('toErrorResponse', () => {
  it('keeps typed errors as they are, headers included', () => {
    const out = toErrorResponse(new Unauthorized(), 'rid');
    expect(out.status).toBe(401);
    expect(out.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED', details: null });
    expect(out.headers['WWW-Authenticate']).toBe('Bearer');
    expect(toErrorResponse(new Conflict('HANDLE_TAKEN', 'taken'), 'rid').body.code).toBe('HANDLE_TAKEN');
  });

  it('never puts an unknown error message or stack on the wire', () => {
    const out = toErrorResponse(new Error('password=hunter2 at /srv/app.ts:12'), 'req-42');
    expect(out).toMatchObject({ status: 500, unexpected: true });
    expect(out.body).toEqual({ error: 'internal error; report the request id', code: 'INTERNAL', details: { request_id: 'req-42' } });
    expect(JSON.stringify(out.body)).not.toContain('hunter2');
  });

  it('maps a unique violation that escaped the domain to 409, and a refused connection to 503', () => {
    expect(toErrorResponse(new UniqueConstraintViolationException(new Error('dup')), 'r').status).toBe(409);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toErrorResponse(refused, 'r')).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' }, headers: { 'Retry-After': '1' } });
    const unavailable = [
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('connection does not exist'), { code: '08003' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('terminating connection due to crash'), { code: '57P02' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '08001' }) }),
    ];
    for (const err of unavailable) {
      expect(toErrorResponse(err, 'r'), err.message).toMatchObject({
        status: 503,
        body: { code: 'UNAVAILABLE' },
        headers: { 'Retry-After': '1' },
        unexpected: false,
      });
    }
    expect(toErrorResponse(Object.assign(new Error('syntax'), { code: '42601' }), 'r').status).toBe(500);
  });
});

describe('validationFailed', () => {
  it('lists every failure with where it is', () => {
    const err = validationFailed([
      {
        instancePath: '/requestBody',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'extra' },
        schemaPath: '',
        message: 'x',
      },
      { instancePath: '/requestBody/amount_micros', keyword: 'minimum', params: {}, schemaPath: '', message: 'must be >= 1' },
      { instancePath: '/query/limit', keyword: 'type', params: {}, schemaPath: '', message: 'must be integer' },
      { instancePath: '', keyword: 'required', params: { missingProperty: 'requestBody' }, schemaPath: '', message: 'x' },
    ]);
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details).toEqual([
      { in: 'body', path: '/extra', message: 'is not a known property' },
      { in: 'body', path: '/amount_micros', message: 'must be >= 1' },
      { in: 'query', path: '/limit', message: 'must be integer' },
      { in: 'body', path: '', message: 'a JSON request body is required' },
    ]);
  });
});

describe('capDetails', () => {
  it('keeps the first 20 failures and counts the rest', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ in: 'body', path: `/k${i}`, message: 'is not a known property' }));
    const out = toErrorResponse(
      validationFailed(
        many.map(
          (d) =>
            ({
              instancePath: '/requestBody',
              keyword: 'additionalProperties',
              params: { additionalProperty: d.path.slice(1) },
              schemaPath: '',
            }) as never,
        ),
      ),
      'r',
    );
    expect(out.body.details).toHaveLength(21);
    expect((out.body.details as unknown[])[20]).toEqual({ omitted: 5 });
    expect(toErrorResponse(new Conflict('X', 'x', [1, 2]), 'r').body.details).toEqual([1, 2]);
  });
});
