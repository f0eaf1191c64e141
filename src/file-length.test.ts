// No hand-written source file is longer than 300 lines, tests included (docs/architecture.md): a file that
// grows past it holds two subjects; split it by topic and move shared set-up into a helper, never a copy.
// generated/ (written by `npm run generate`) and contracts/build/ are exempt: nobody reads them as code.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 300;
const CODE = /\.(ts|tsx|js|mjs|cjs|sh)$/;
const EXEMPT = /^(generated|contracts\/build)\//;

const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0');
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('file length', () => {
  it(`no hand-written source file is over ${MAX_LINES} lines`, () => {
    const files = tracked.filter((f) => CODE.test(f) && !EXEMPT.test(f));
    expect(files.length).toBeGreaterThan(100);
    const over = files.map((f) => ({ f, n: lineCount(readFileSync(f, 'utf8')) })).filter(({ n }) => n > MAX_LINES);
    expect(over.map(({ f, n }) => `${f} (${n} lines)`)).toEqual([]);
  });

  it('counts lines as wc -l does (the check can fail)', () => {
    expect(lineCount('a\n'.repeat(MAX_LINES + 1))).toBe(MAX_LINES + 1);
    expect(lineCount('a\nb')).toBe(2);
  });
});
