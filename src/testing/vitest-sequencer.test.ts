import { describe, expect, it } from 'vitest';
import { byDuration, UNKNOWN_MS } from './vitest-sequencer.js';

describe('byDuration (the order test files start in)', () => {
  const id = (s: string) => s;
  it('starts the longest first, across projects, and an unlisted file as UNKNOWN_MS', () => {
    const known = { 'a.int.test.ts': 145_000, 'b.test.ts': 1_000, 'c.db.test.ts': UNKNOWN_MS + 1 };
    expect(byDuration(['b.test.ts', 'new.int.test.ts', 'c.db.test.ts', 'a.int.test.ts'], id, known)).toEqual([
      'a.int.test.ts',
      'c.db.test.ts',
      'new.int.test.ts',
      'b.test.ts',
    ]);
  });
  it('orders equal estimates by path, the same on every run', () => {
    expect(byDuration(['z.ts', 'm.ts', 'a.ts'], id, {})).toEqual(['a.ts', 'm.ts', 'z.ts']);
  });
});
