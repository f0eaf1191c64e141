// A migrated embedded database (PGlite) for the tests whose services start on DATA_DIR (issue 40). A first
// embedded start creates the database and runs every migration inside PGlite's WebAssembly PostgreSQL: about
// 11 s of CPU, against about 5 s for a start on a migrated one. embeddedDataDir hands a test a fresh DATA_DIR
// holding a copy of one migrated database, made once per test build (src/testing/test-build.ts) by the service's
// own migration step (src/migrate.ts); the copy is the test's own, so nothing is shared between tests.
// Only for tests that are not about the first start itself: those (the README walkthroughs, the demo seed) start on
// an empty DATA_DIR as a newcomer does.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtEntry } from './service-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where the template lives: beside the tests' build (reused by every file of the run), else a folder of this process. */
function templateDir(): string {
  const build = process.env.TEST_SERVICE_BUILD_DIR;
  return build ? join(ROOT, build, 'pglite-template') : join(tmpdir(), `crfq-pglite-template-${process.pid}`);
}

/** Makes the template unless it is there: migrate into a folder of this process, then rename it into place (the first rename wins). */
function ensureTemplate(): string {
  const dir = templateDir();
  if (existsSync(join(dir, 'pglite'))) return dir;
  const tmp = `${dir}.tmp${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const entry = builtEntry('src/migrate.ts');
  const loader = entry.endsWith('.js') ? [] : ['--import', 'tsx'];
  const run = spawnSync(process.execPath, [...loader, entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: tmp, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`embedded template: the migration step failed (${run.status}):\n${run.stdout}${run.stderr}`);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test process made it first
  }
  return dir;
}

/** A new DATA_DIR (under the OS temp folder, `prefix` in its name) holding a migrated embedded database of its own. */
export function embeddedDataDir(prefix: string): string {
  const template = ensureTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(template, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}
