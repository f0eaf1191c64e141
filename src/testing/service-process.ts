// Boots the real service as a child process (the same entry point `npm start` runs) on port 0 and
// reads the port from its "listening" log line. Tests talk to it over HTTP only.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  baseUrl: string;
  port: number;
  proc: ChildProcess;
  /** Every log line (parsed JSON where possible) the process wrote so far. */
  logs: Array<Record<string, unknown>>;
  rawOutput: string[];
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  waitForLog(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /**
   * Stops parsing the process's output (it is still read, and dropped): a benchmark whose load generator runs
   * in this process must not also parse the service's log lines, which a deployment's log shipper does elsewhere.
   */
  discardOutput(): void;
}

export interface StartOptions {
  env: Record<string, string | undefined>;
  /**
   * Default src/main.ts. A `.ts` entry runs from the tests' build when the global setup made one
   * (TEST_SERVICE_BUILD_DIR, src/testing/test-build.ts) and it holds that entry, else through tsx; a `.js` entry
   * (the build in dist/) runs on plain node as given.
   */
  entry?: string;
  args?: string[];
  /** Resolve once this log predicate matches (default: the "listening" line). */
  readyWhen?: (line: Record<string, unknown>) => boolean;
  timeoutMs?: number;
}

/** `src/x.ts` → `<build>/src/x.js` when the tests' build holds it (same code, same env, no TypeScript loader). */
export function builtEntry(entry: string): string {
  const build = process.env.TEST_SERVICE_BUILD_DIR;
  if (!build || !entry.endsWith('.ts')) return entry;
  const js = join(build, entry.replace(/\.ts$/, '.js'));
  return existsSync(join(ROOT, js)) ? js : entry;
}

export async function startServiceProcess(opts: StartOptions): Promise<ServiceProcess> {
  const env: Record<string, string> = {};
  // The event-loop-delay and create-latency signals of RFQ admission (src/http/admission.ts) are off in test processes
  // unless a test sets them: a CPU-starved CI box delays every loop and every statement, and a test about something
  // else must not be shed. Admission itself is tested with its own settings (contract-tests/rfq-overloaded.test.ts,
  // src/http/admission.test.ts).
  const defaults = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    RFQ_ADMISSION_MAX_LOOP_DELAY_MS: '0',
    RFQ_ADMISSION_MAX_CREATE_MS: '0',
    // A run holds dozens of service processes at once on one PostgreSQL (max_connections 100 by default): with the
    // default ORM pool of 10 (beside BullMQ's own on PostgreSQL) two onchain stacks of four processes each could take
    // them all ("sorry, too many clients already"). Tests that need another size set it.
    DATABASE_POOL_MAX: '5',
    // Node's on-disk cache of compiled modules (issue 40): a test run starts hundreds of service processes from the
    // same files, and each start then skips compiling them again (measured: 2.7 s of CPU to "listening" → 2.35 s).
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(ROOT, 'node_modules/.cache/node-compile'),
  };
  for (const [k, v] of Object.entries({ ...defaults, ...opts.env })) {
    if (v !== undefined) env[k] = v;
  }
  const entry = builtEntry(opts.entry ?? 'src/main.ts');
  const loader = entry.endsWith('.js') ? [] : ['--import', 'tsx'];
  const proc = spawn(process.execPath, [...loader, entry, ...(opts.args ?? [])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const rawOutput: string[] = [];
  const waiters: Array<{ pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  const onLine = (line: string) => {
    rawOutput.push(line);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      parsed = { msg: line, raw: true };
    }
    logs.push(parsed);
    for (const w of [...waiters]) {
      if (w.pred(parsed)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(parsed);
      }
    }
  };
  const readers = [
    createInterface({ input: proc.stdout! }).on('line', onLine),
    createInterface({ input: proc.stderr! }).on('line', onLine),
  ];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

  const waitForLog = (pred: (l: Record<string, unknown>) => boolean, timeoutMs = 30_000) => {
    const found = logs.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`log line not seen within ${timeoutMs} ms; output:\n${rawOutput.slice(-30).join('\n')}`)),
        timeoutMs,
      );
      waiters.push({
        pred,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`process exited (${code}) before the expected log line; output:\n${rawOutput.slice(-30).join('\n')}`));
      });
    });
  };

  let ready: Record<string, unknown>;
  try {
    ready = await waitForLog(opts.readyWhen ?? ((l) => l.msg === 'listening'), opts.timeoutMs ?? 60_000);
  } catch (err) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL'); // never leave an orphan behind
    throw err;
  }
  const port = typeof ready.port === 'number' ? ready.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    proc,
    logs,
    rawOutput,
    waitForLog,
    discardOutput() {
      for (const r of readers) r.close();
      proc.stdout!.resume();
      proc.stderr!.resume();
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill(signal);
      return exited;
    },
  };
}
