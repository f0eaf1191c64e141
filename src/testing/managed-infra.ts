// The infrastructure operators run, started locally for a test (src/deployments-managed.int.test.ts): PgBouncer
// in transaction mode in front of the test PostgreSQL (Debian's `pgbouncer`), and a second redis-server that
// speaks TLS only, with a certificate made by `openssl` at start. Both are child processes on free ports with
// their files in a temporary directory; stop() ends them and removes it. A missing binary throws a message
// naming the package (CI installs them: .ci/run): the test fails, it never skips.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalProcess {
  port: number;
  /** What the process wrote (stdout and stderr), for failure messages. */
  output: string[];
  stop(): Promise<void>;
}

export interface Bouncer extends LocalProcess {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` through PgBouncer. */
  urlFor(database: string): string;
  /** The admin console (`SHOW STATS`, `SHOW CONFIG`...). */
  adminUrl: string;
  version: string;
  /** PgBouncer 1.21+ tracks protocol-level prepared statements (max_prepared_statements is set then). */
  tracksPreparedStatements: boolean;
}

export interface TlsRedis extends LocalProcess {
  /** `rediss://127.0.0.1:<port>`. */
  url: string;
  /** The self-signed certificate the server presents: give it to Node as NODE_EXTRA_CA_CERTS. */
  caFile: string;
}

/** The binary's path, or an error that says which Debian package provides it. */
export function requireBinary(name: string, pkg: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')[0]!;
  } catch {
    throw new Error(`${name} is not installed: install the Debian package "${pkg}" (apt-get install -y ${pkg}; .ci/run does it in CI)`);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Spawns `cmd` and resolves once a line of its output matches `ready`; rejects with its output if it exits first. */
function startLocal(cmd: string, args: string[], ready: RegExp, port: number, cleanup: () => void): Promise<LocalProcess> {
  const proc: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${cmd} did not start within 15 s:\n${output.join('')}`)), 15_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      cleanup();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (ready.test(chunk.toString())) {
        clearTimeout(timer);
        resolve({
          port,
          output,
          async stop() {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
            await exited;
            cleanup();
          },
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('error', (err) => fail(err));
    void exited.then(() => fail(new Error(`${cmd} exited (${proc.exitCode}) at start:\n${output.join('')}`)));
  });
}

/** PgBouncer in transaction mode in front of 127.0.0.1:5432 (trust, user postgres), as docs/operations.md configures it. */
export async function startPgBouncer(): Promise<Bouncer> {
  const bin = requireBinary('pgbouncer', 'pgbouncer');
  const version = /PgBouncer (\d+\.\d+(?:\.\d+)?)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))?.[1] ?? '0';
  const [major, minor] = version.split('.').map(Number) as [number, number];
  const tracksPreparedStatements = major > 1 || minor >= 21;
  const dir = mkdtempSync(join(tmpdir(), 'crfq-pgbouncer-'));
  const port = await freePort();
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      '* = host=127.0.0.1 port=5432 user=postgres',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 20',
      ...(tracksPreparedStatements ? ['max_prepared_statements = 200'] : []),
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it drops to nobody (-u), which must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) for (const f of [dir, join(dir, 'users.txt'), join(dir, 'pgbouncer.ini')]) chmodSync(f, f === dir ? 0o755 : 0o644);
  const args = [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')];
  const p = await startLocal(bin, args, /process up/, port, () => rmSync(dir, { recursive: true, force: true }));
  return {
    ...p,
    version,
    tracksPreparedStatements,
    urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
  };
}

/** A redis-server on a TLS port only (no plaintext port), with a fresh self-signed certificate for 127.0.0.1. */
export async function startTlsRedis(): Promise<TlsRedis> {
  const openssl = requireBinary('openssl', 'openssl');
  const bin = requireBinary('redis-server', 'redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'crfq-redis-tls-'));
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  execFileSync(
    openssl,
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost'].concat([
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'pipe' },
  );
  const port = await freePort();
  const args = ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--tls-cert-file', cert, '--tls-key-file', key];
  args.push('--tls-ca-cert-file', cert, '--tls-auth-clients', 'no', '--save', '', '--appendonly', 'no', '--dir', dir);
  const p = await startLocal(bin, args, /Ready to accept connections/, port, () => rmSync(dir, { recursive: true, force: true }));
  return { ...p, url: `rediss://127.0.0.1:${port}`, caFile: cert };
}
