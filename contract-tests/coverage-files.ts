// Where the contract tests record which (operationId, documented status) pairs they exercised, and how
// coverage-report.ts reads them back. One file per test file (each test file has its own module scope).
//
// Several people run the contract tests in the same checkout at the same time, so each file names the
// processes it ran under, and the report takes only the files of its own `npm run test:contract`
// (the shell or npm process both it and vitest descend from) and deletes only those.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';

export const COVERAGE_DIR = fileURLToPath(new URL('./.coverage/', import.meta.url));
const STALE_MS = 60 * 60 * 1000;

export interface CoverageFile {
  /** The vitest process and its ancestors (Linux /proc; just the vitest pid elsewhere). */
  ancestors: number[];
  test_file: string;
  /** operationId -> documented status keys ('200', '4XX', 'default') exercised and found conforming. */
  exercised: Record<string, string[]>;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // "pid (comm) state ppid ..."
    return ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** pid, its parent, grandparent, ... (at most `depth` entries). */
export function ancestors(pid: number, depth = 3): number[] {
  const out = [pid];
  for (let p = parentOf(pid); p !== undefined && out.length < depth; p = parentOf(p)) out.push(p);
  return out;
}

export function createCoverageWriter(testFile: () => string): (operationId: string, status: string) => void {
  const exercised = new Map<string, Set<string>>();
  // Test files run in child processes (forks pool) or worker threads of the vitest process.
  const lineage = ancestors(isMainThread ? process.ppid : process.pid);
  let file: string | undefined;
  return (operationId, status) => {
    let statuses = exercised.get(operationId);
    if (!statuses) exercised.set(operationId, (statuses = new Set()));
    if (statuses.has(status)) return;
    statuses.add(status);
    mkdirSync(COVERAGE_DIR, { recursive: true });
    const ignore = join(COVERAGE_DIR, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
    file ??= join(COVERAGE_DIR, `${lineage[0]}-${process.pid}-${randomBytes(4).toString('hex')}.json`);
    const content: CoverageFile = {
      ancestors: lineage,
      test_file: testFile(),
      exercised: Object.fromEntries([...exercised].map(([op, s]) => [op, [...s].sort()])),
    };
    writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
  };
}

interface Found {
  path: string;
  mtime: number;
  content: CoverageFile;
}

function listFiles(): Found[] {
  if (!existsSync(COVERAGE_DIR)) return [];
  return readdirSync(COVERAGE_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const path = join(COVERAGE_DIR, name);
      return { path, mtime: statSync(path).mtimeMs, content: JSON.parse(readFileSync(path, 'utf8')) as CoverageFile };
    });
}

/**
 * The coverage files of the caller's run: those whose vitest shares an ancestor with the caller
 * (`npm run test:contract` runs both under one shell). Run by hand, apart from vitest: the files of the
 * most recent vitest process. `consume()` deletes them, stale leftovers, and the directory once empty.
 */
export function readRunCoverage(): { files: CoverageFile[]; matchedBy: 'ancestry' | 'latest'; consume(): void } {
  const all = listFiles();
  const mine = new Set(ancestors(process.ppid));
  let chosen = all.filter((f) => f.content.ancestors.slice(1).some((pid) => mine.has(pid)));
  let matchedBy: 'ancestry' | 'latest' = 'ancestry';
  if (!chosen.length && all.length) {
    const latest = all.reduce((a, b) => (b.mtime > a.mtime ? b : a)).content.ancestors[0];
    chosen = all.filter((f) => f.content.ancestors[0] === latest);
    matchedBy = 'latest';
  }
  return {
    files: chosen.map((f) => f.content),
    matchedBy,
    consume() {
      const now = Date.now();
      for (const f of all) if (chosen.includes(f) || now - f.mtime > STALE_MS) rmSync(f.path, { force: true });
      if (!listFiles().length) rmSync(COVERAGE_DIR, { recursive: true, force: true });
    },
  };
}
