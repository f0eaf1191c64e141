// The README and docs/ link each other and the code: every relative link must name a file that exists
// (a page renamed or never written fails here, not in a reader's browser). A source path the pages name in
// code spans (`src/...`, `scripts/...`) must exist too: a file moved or deleted fails here, not in a reader's
// terminal. Paths of other repositories are written without code spans.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

// A code span starting with one of the repository's top-level source folders, e.g. `src/main.ts`.
const SOURCE_PATH =
  /`((?:src|sdk|workers|scripts|e2e|contract-tests|spec|migrations|bench|generated|examples|contracts)\/[\w.\-/*{}<>[\]]+)`/g;

describe('links in README.md and docs/', () => {
  it('every relative link names a file of the repository', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const path = decodeURIComponent(target!.split('#')[0]!);
        if (!existsSync(resolve(dirname(join(ROOT, page)), path))) broken.push(`${page} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every source path named in a code span is a file or folder of the repository', () => {
    const missing: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, named] of text.matchAll(SOURCE_PATH)) {
        const path = named!.replace(/[.,:;]$/, '');
        if (/[*{<]/.test(path)) continue; // a glob or a placeholder, not one file
        if (!existsSync(join(ROOT, path))) missing.push(`${page} -> ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the source-path check sees a path that does not exist', () => {
    const [match] = 'see `src/domain/no-such-file.ts`'.matchAll(SOURCE_PATH);
    expect(match?.[1]).toBe('src/domain/no-such-file.ts');
    expect(existsSync(join(ROOT, match![1]!))).toBe(false);
  });
});
