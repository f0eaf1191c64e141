// The services' build for the tests (issue 40): a service process started from plain JavaScript skips
// loading every TypeScript file through tsx (about 3 s of CPU per start). The global setup
// (src/testing/vitest-global-setup.ts) runs scripts/build.ts once into .test-build/<hash of the sources>, or
// reuses that directory when the sources are unchanged, and hands it to startServiceProcess
// (src/testing/service-process.ts) in TEST_SERVICE_BUILD_DIR. When the build fails the services run through
// tsx as before. TEST_SERVICE_TSX=1 skips the build (debugging a service under tsx).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, globSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_URL } from './postgres.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INPUTS = [
  'src/**/*',
  'workers/**/*',
  'spec/*.yaml',
  'generated/**/*',
  'scripts/build.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
];

/** A hash of every file the build reads (tests and the testing helpers excluded: they are not built). */
export function sourcesHash(): string {
  const files = globSync(INPUTS, { cwd: ROOT })
    .filter((f) => !/\.test\.ts$/.test(f) && !f.startsWith('src/testing/') && statSync(join(ROOT, f)).isFile())
    .sort();
  const hash = createHash('sha256');
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(ROOT, f)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

function buildInto(dir: string): boolean {
  const tmp = `${dir}.tmp${process.pid}`;
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out', tmp], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) {
    rmSync(join(ROOT, tmp), { recursive: true, force: true });
    process.stderr.write(`test build failed, services run through tsx:\n${built.stdout}${built.stderr}\n`);
    return false;
  }
  writeFileSync(join(ROOT, tmp, 'COMPLETE'), `${new Date().toISOString()}\n`);
  renameSync(join(ROOT, tmp), join(ROOT, dir));
  return true;
}

/** Serialises the build across the vitest processes of one run (and of other checkouts: harmless). */
async function withLock<T>(fn: () => T): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch {
    return fn(); // no PostgreSQL: nothing else to wait for in a unit-only run
  }
  try {
    await admin.query('select pg_advisory_lock(hashtext($1))', ['crfq_test_build']);
    return fn();
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** The build's directory (relative to the checkout), or undefined: services run through tsx. */
export async function ensureTestBuild(): Promise<string | undefined> {
  if (process.env.TEST_SERVICE_TSX === '1') return undefined;
  const started = Date.now();
  const dir = `.test-build/${sourcesHash()}`;
  const complete = () => existsSync(join(ROOT, dir, 'COMPLETE'));
  if (complete()) return dir;
  const ok = await withLock(() => complete() || buildInto(dir));
  if (ok) process.stderr.write(`test build ${dir} ready in ${Date.now() - started} ms\n`);
  return ok ? dir : undefined;
}
