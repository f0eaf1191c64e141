// Issue 40's measurement: the CPU time (user + system, from /proc) one service process spends until it logs
// "listening", started through tsx on an empty database (before) and from the tests' build on a clone of the
// migrated template (after). Run after a vitest run made both: npx tsx scripts/measure-service-start.ts
import { readFileSync } from 'node:fs';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../src/testing/postgres.js';
import { startServiceProcess } from '../src/testing/service-process.js';
import { ensureTemplateDatabase } from '../src/testing/template-db.js';
import { ensureTestBuild } from '../src/testing/test-build.js';

const TICKS = 100; // getconf CLK_TCK on Linux

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime
}

async function once(mode: 'tsx+empty' | 'build+template'): Promise<void> {
  const db = await createTestDatabase('measure', undefined, { empty: mode === 'tsx+empty' });
  if (mode === 'tsx+empty') delete process.env.TEST_SERVICE_BUILD_DIR;
  else process.env.TEST_SERVICE_BUILD_DIR = await ensureTestBuild();
  const started = Date.now();
  const svc = await startServiceProcess({
    env: { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniquePrefix('measure') },
    args: ['--role=api'],
  });
  const cpu = cpuSeconds(svc.proc.pid!);
  process.stdout.write(
    `${mode}: ${cpu.toFixed(2)} s CPU, ${Date.now() - started} ms wall to "listening" (${svc.proc.spawnargs.slice(1, 4).join(' ')})\n`,
  );
  await svc.stop();
  await db.drop();
}

await ensureTemplateDatabase();
for (let i = 0; i < 2; i++) {
  await once('tsx+empty');
  await once('build+template');
}
