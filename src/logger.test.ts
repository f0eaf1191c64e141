import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessLineWriter, isoTime, type AccessFields, type AccessLevel } from './logger.js';

afterEach(() => vi.useRealTimers());

describe('isoTime: the time field of every log line', () => {
  it("is pino's isoTime field, also for a second line in the same millisecond and after the clock moves on", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const at of [Date.UTC(2026, 10, 28, 21, 0, 0, 1), Date.UTC(2026, 10, 28, 21, 0, 0, 1), Date.UTC(2026, 10, 28, 21, 0, 0, 2), 0]) {
      vi.setSystemTime(at);
      expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      expect(JSON.parse(`{"a":1${isoTime()}}`)).toEqual({ a: 1, time: new Date(at).toISOString() });
    }
  });
});

describe('accessLineWriter: the one line per HTTP request', () => {
  /** A logger like createLogger's (level labels, ISO time, base and child bindings) writing into `lines`. */
  const loggerInto = (lines: string[], level = 'info') =>
    pino(
      {
        level,
        base: { service: 'contest-rfq-service', role: 'api' },
        timestamp: isoTime,
        formatters: { level: (label: string) => ({ level: label }) },
      },
      { write: (line: string) => void lines.push(line) },
    ).child({ worker_id: 'vm:1:abc' });

  const cases: Array<[AccessLevel, AccessFields]> = [
    [
      'info',
      {
        request_id: 'r-1',
        client_ip: '127.0.0.1',
        method: 'GET',
        path: '/v1/markets/current',
        operation_id: 'getCurrentMarket',
        status: 200,
        duration_ms: 0.3,
      },
    ],
    [
      'info',
      {
        request_id: 'r-2',
        client_ip: '2001:db8::1',
        method: 'POST',
        path: '/v1/rfq',
        operation_id: 'createRfq',
        status: 409,
        duration_ms: 12,
        code: 'NONCE_REUSED',
      },
    ],
    [
      'error',
      {
        request_id: 'r-3',
        client_ip: '::1',
        method: 'GET',
        path: '/v1/x"y\\z\u0001\u00e9',
        operation_id: 'unmatched',
        status: 500,
        duration_ms: 1.5,
        code: 'INTERNAL',
      },
    ],
    [
      'debug',
      { request_id: 'r-4', client_ip: '10.0.0.1', method: 'GET', path: '/healthz', operation_id: 'getHealth', status: 200, duration_ms: 0 },
    ],
  ];

  it("writes pino's own line byte for byte, at the levels the logger has enabled", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 28, 21, 30, 0, 7));
    for (const level of ['debug', 'info']) {
      const ours: string[] = [];
      const theirs: string[] = [];
      const write = accessLineWriter(loggerInto(ours, level));
      const reference = loggerInto(theirs, level);
      for (const [lineLevel, fields] of cases) {
        write(lineLevel, fields);
        reference[lineLevel]({ ...fields }, 'request');
      }
      expect(ours).toEqual(theirs);
      expect(ours).toHaveLength(level === 'debug' ? 4 : 3);
      expect(JSON.parse(ours[1]!)).toMatchObject({
        level: 'info',
        role: 'api',
        worker_id: 'vm:1:abc',
        code: 'NONCE_REUSED',
        msg: 'request',
      });
    }
  });

  it("follows a change of the logger's level", () => {
    const lines: string[] = [];
    const logger = loggerInto(lines);
    const write = accessLineWriter(logger);
    write('debug', cases[3]![1]);
    logger.level = 'debug';
    write('debug', cases[3]![1]);
    logger.level = 'error';
    write('info', cases[0]![1]);
    expect(lines.map((l) => (JSON.parse(l) as { request_id: string }).request_id)).toEqual(['r-4']);
  });
});
