import { describe, expect, it } from 'vitest';
import { decideExisting, fingerprint } from './idempotency.js';
import { parseFailpoints } from '../failpoints.js';
import { ConfigError, loadConfig } from '../config/load.js';

const print = fingerprint({ amount_micros: 100, idempotency_key: 'k' });

describe('decideExisting: what a request does about a committed key row', () => {
  it('another body is a reuse, whatever the state', () => {
    for (const state of ['done', 'in_progress'] as const) {
      expect(decideExisting({ fingerprint: fingerprint({ amount_micros: 101 }), state }, print)).toBe('reused');
    }
  });

  it("a done key replays; an in-progress key (an earlier version's leftover) is in progress, never taken over", () => {
    expect(decideExisting({ fingerprint: print, state: 'done' }, print)).toBe('replay');
    expect(decideExisting({ fingerprint: print, state: 'in_progress' }, print)).toBe('in_progress');
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
