// Confirmations counted from what is stored, never asked of the node.
import { describe, expect, it } from 'vitest';
import { confirmationsOf } from './history.js';

describe('confirmationsOf', () => {
  it('is null until a mined block is recorded', () => {
    expect(confirmationsOf(null, 500n, 3)).toBeNull();
    expect(confirmationsOf(null, null, null)).toBeNull();
  });

  it('is at least CHAIN_CONFIRMATIONS once recorded, and grows with the deposit listener’s cursor (head - confirmations + 1)', () => {
    expect(confirmationsOf(100n, null, 3)).toBe(3);
    expect(confirmationsOf(100n, 98n, 3)).toBe(3); // the listener is behind: what the recording proved still holds
    expect(confirmationsOf(100n, 100n, 3)).toBe(3); // head 102: blocks 100, 101, 102
    expect(confirmationsOf(100n, 110n, 3)).toBe(13);
    expect(confirmationsOf(100n, 110n, null)).toBe(11);
  });
});
