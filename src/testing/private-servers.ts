// Private Redis and PostgreSQL servers for fault tests and drills: a free port on 127.0.0.1, a temp
// directory, and stop/kill/restart at will. Never the shared 5432/6379 servers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, ok: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL: no save, no goodbye. */
  kill(): Promise<void>;
  /** Starts again on the same port; `empty` wipes the append-only file first (a fresh, empty Redis). */
  start(opts?: { empty?: boolean }): Promise<void>;
  /** Kill and remove the directory. */
  destroy(): Promise<void>;
}

/** Redis with an fsync-always append-only file, so a kill keeps every acknowledged write. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'crfq-redis-'));
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const ping = () => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG';
  const start = async (opts: { empty?: boolean } = {}) => {
    if (opts.empty) for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
    proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--protected-mode',
        'no',
      ],
      { stdio: 'ignore' },
    );
    await waitFor(`redis on ${port}`, ping);
  };
  const kill = async () => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    async destroy() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivatePostgres {
  /** Superuser URL of the `postgres` database. */
  adminUrl: string;
  port: number;
  /** pg_ctl stop -m immediate (like a crash) or fast. */
  stop(mode?: 'immediate' | 'fast'): void;
  start(): void;
  destroy(): void;
}

function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const p = join(root, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  return name; // on PATH
}

/** initdb + pg_ctl in a temp dir (as the `postgres` user when running as root), trust auth, 127.0.0.1 only. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'crfq-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const run = (bin: string, args: string[]) => {
    const cmd = asRoot ? 'runuser' : pgBin(bin);
    const full = asRoot ? ['-u', 'postgres', '--', pgBin(bin), ...args] : args;
    const r = spawnSync(cmd, full, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  start();
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop(mode = 'immediate') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
    start,
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
