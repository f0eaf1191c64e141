import { describe, expect, it } from 'vitest';
import { decideExisting, fingerprint } from './idempotency.js';
import { parseFailpoints } from '../failpoints.js';
import { ConfigError, loadConfig } from '../config.js';

const print = fingerprint({ amount_micros: 100, idempotency_key: 'k' });

describe('decideExisting: what a request does about a committed key row', () => {
  it('another body is a reuse, whatever the state or the lease', () => {
    for (const state of ['done', 'in_progress'] as const) {
      for (const leaseLeftMs of [0, 30_000])
        expect(decideExisting({ fingerprint: fingerprint({ amount_micros: 101 }), state, leaseLeftMs }, print)).toBe('reused');
    }
  });

  it('a done key replays; an in-progress key is in progress while its lease runs, then taken over', () => {
    expect(decideExisting({ fingerprint: print, state: 'done', leaseLeftMs: 0 }, print)).toBe('replay');
    expect(decideExisting({ fingerprint: print, state: 'in_progress', leaseLeftMs: 60_000 }, print)).toBe('in_progress');
    expect(decideExisting({ fingerprint: print, state: 'in_progress', leaseLeftMs: 1 }, print)).toBe('in_progress');
    expect(decideExisting({ fingerprint: print, state: 'in_progress', leaseLeftMs: 0 }, print)).toBe('take_over');
  });
});

describe('failpoints', () => {
  it('parses name=action lists and names every bad part', () => {
    expect(parseFailpoints('after-commit:createDeposit=kill, after-commit:creditAppTokens=error')).toEqual({
      points: { 'after-commit:createDeposit': 'kill', 'after-commit:creditAppTokens': 'error' },
      problems: [],
    });
    expect(parseFailpoints('').points).toEqual({});
    expect(parseFailpoints('after-commit:createDeposit=explode,nonsense=kill').problems).toHaveLength(2);
  });

  it('config takes FAILPOINTS in development and test, and refuses it in production', () => {
    expect(loadConfig({ FAILPOINTS: 'after-commit:createDeposit=error' }).failpoints).toEqual({ 'after-commit:createDeposit': 'error' });
    expect(loadConfig({}).failpoints).toEqual({});
    expect(() => loadConfig({ FAILPOINTS: 'after-commit:createDeposit=bogus' })).toThrow(ConfigError);
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', OPERATOR_TOKEN: 'o'.repeat(16) };
    expect(() => loadConfig({ ...production, FAILPOINTS: 'after-commit:createDeposit=kill' })).toThrow(
      /FAILPOINTS: fault injection is refused when NODE_ENV=production/,
    );
  });
});
