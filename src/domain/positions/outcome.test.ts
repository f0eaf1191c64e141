import { describe, expect, it } from 'vitest';
import { positionStatus } from './outcome.js';

describe('parlay status', () => {
  it('lost as soon as one leg lost, even with legs pending', () => {
    expect(positionStatus(['lost', 'pending'])).toBe('lost');
    expect(positionStatus(['won', 'voided', 'lost'])).toBe('lost');
  });
  it('won only when every leg won', () => {
    expect(positionStatus(['won'])).toBe('won');
    expect(positionStatus(['won', 'won', 'won'])).toBe('won');
    expect(positionStatus(['won', 'pending'])).toBe('open');
  });
  it('voided when no leg lost, at least one voided and none pending', () => {
    expect(positionStatus(['voided'])).toBe('voided');
    expect(positionStatus(['won', 'voided'])).toBe('voided');
    expect(positionStatus(['voided', 'pending'])).toBe('open');
  });
  it('open while anything is pending and nothing lost; a position has legs', () => {
    expect(positionStatus(['pending'])).toBe('open');
    expect(() => positionStatus([])).toThrow(RangeError);
  });
});
