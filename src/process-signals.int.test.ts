// Stopping `npm start` / `npm run start:api` stops the service: SIGTERM sent to the npm process must reach
// the service (no shell or wrapper in between that swallows it), which shuts down gracefully and frees
// its port. Each npm runs in a process group of its own, so that a service left behind by a broken
// script is still killed at the end of the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './testing/postgres.js';
import { embeddedDataDir } from './testing/embedded-template.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const groups: number[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // the group is gone: nothing was left behind
    }
  }
  for (const c of cleanups) await c();
});

interface NpmRun {
  proc: ChildProcess;
  lines: string[];
  port: Promise<number>;
  exited: Promise<number | null>;
}

function npmRun(script: string, env: Record<string, string>): NpmRun {
  const proc = spawn('npm', ['run', '-s', script], {
    cwd: ROOT,
    detached: true, // own process group
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(proc.pid!);
  const lines: string[] = [];
  const port = new Promise<number>((resolve, reject) => {
    const onLine = (line: string) => {
      lines.push(line);
      const m = /"port":(\d+).*"msg":"listening"/.exec(line);
      if (m) resolve(Number(m[1]));
    };
    createInterface({ input: proc.stdout! }).on('line', onLine);
    createInterface({ input: proc.stderr! }).on('line', onLine);
    proc.once('exit', () => reject(new Error(`npm run ${script} exited before listening:\n${lines.slice(-20).join('\n')}`)));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, lines, port, exited };
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

async function portFreedWithin(port: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (!(await portAnswers(port))) return true;
  }
  return false;
}

async function stopsOnSigterm(script: string, env: Record<string, string>): Promise<void> {
  const run = npmRun(script, env);
  const port = await run.port;
  expect(await portAnswers(port)).toBe(true);
  process.kill(run.proc.pid!, 'SIGTERM'); // what a terminal, systemd or a container runtime does to `npm start`
  await run.exited;
  expect(await portFreedWithin(port, 15_000), `port ${port} still served after SIGTERM to npm:\n${run.lines.slice(-10).join('\n')}`).toBe(
    true,
  );
  expect(
    run.lines.some((l) => l.includes('"msg":"stopped"')),
    'the service shut down gracefully',
  ).toBe(true);
}

describe('signals reach the service through npm', () => {
  it('npm run start:api (PostgreSQL)', async () => {
    const db: TestDatabase = await createTestDatabase('signals');
    cleanups.push(() => db.drop());
    await stopsOnSigterm('start:api', { DATABASE_URL: db.url });
  }, 90_000);

  it('npm start (embedded)', async () => {
    const dataDir = embeddedDataDir('crfq-signals-');
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    await stopsOnSigterm('start', { DATA_DIR: dataDir });
  }, 90_000);
});
