// Embedded PostgreSQL (PGlite) for the zero-setup deployment: one in-process instance serves MikroORM
// and BullMQ. PGlite has no data-directory lock of its own and two processes on one directory corrupt it
// silently, so we take an exclusive lockfile first.
import { mkdirSync, openSync, closeSync, writeSync, readFileSync, unlinkSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPostgreSqlTypeParsers } from '@mikro-orm/sql';
import array from 'postgres-array';

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `DATA_DIR ${dir} is in use by process ${pid}. Embedded mode (no DATABASE_URL) serves one process: ` +
        'stop the other process, point DATA_DIR elsewhere, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes DATA_DIR/service.lock (O_EXCL); a lock left by a dead process is taken over. Returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, 'utf8') === String(process.pid)) unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw new DataDirLockedError(dir, pid);
      unlinkSync(lockPath); // stale lock of a dead process
    }
  }
  throw new Error(`could not take ${lockPath}`);
}

export async function openEmbeddedDatabase(dataDir: string): Promise<PGlite> {
  const dir = resolve(dataDir, 'pglite');
  mkdirSync(resolve(dataDir), { recursive: true });
  // The same type parsers MikroORM installs on the PGlite instances it creates itself.
  const parsers = createPostgreSqlTypeParsers((s: string) => array.parse(s));
  // int8 as its decimal text, as pg returns it: one representation on both drivers (src/db/int8.ts).
  parsers[20] = (s: string) => s;
  const db = await PGlite.create({ dataDir: dir, parsers });
  await db.waitReady;
  return db;
}
