// The order test files start in (issue 40). CI is CPU-bound on 2 cores with four files at once, so the run ends
// when its last file does: a 150 s file that starts near the end leaves the other workers idle for minutes.
// Vitest's own order starts the projects one after the other (contract, db, integration, unit) and, on a fresh
// clone with no results cache, each project's files by size. This sequencer starts the longest files first, across
// projects, by the durations recorded in src/testing/test-durations.json (a CI run's; `npm run test:durations --
// <vitest JSON report>` rewrites it); a file not listed yet counts as UNKNOWN_MS, so a new slow file is not last.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const DURATIONS_FILE = new URL('./test-durations.json', import.meta.url);
/** What a file missing from the durations counts as (ms): about an integration file's median. */
export const UNKNOWN_MS = 20_000;

function durations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Longest first; ties (and files of equal estimate) by path, so the order is the same on every run. Pure. */
export function byDuration<T>(items: readonly T[], pathOf: (item: T) => string, known: Readonly<Record<string, number>>): T[] {
  const cost = (item: T) => known[pathOf(item)] ?? UNKNOWN_MS;
  return [...items].sort((a, b) => cost(b) - cost(a) || (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0));
}

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return byDuration(files, (spec) => relative(root, spec.moduleId), durations());
  }
}
