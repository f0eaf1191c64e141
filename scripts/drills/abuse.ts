// Abuse drills (issue 17): the same floods as src/ws/abuse.int.test.ts and
// src/http/connection-limits.int.test.ts, run against the drill environment (private PostgreSQL and
// Redis, the service as its own API and workers processes, default limits) and printed as numbers.
// Traffic stays on 127.0.0.0/8 and is bounded in count and time.
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';
import { newUserSession } from '../../src/testing/money.js';
import { sleep, type Env } from './harness.js';

export interface AbuseDrill {
  name: string;
  what: string;
  /** Runs the drill, prints its numbers, and says whether it passed. */
  run(env: Env): Promise<{ ok: boolean; report: Record<string, unknown> }>;
}

const FRAMES = 40_000;
const HEALTH_MAX_MS = 2000;
const SOCKETS_WANTED = 4000;
const FD_MARGIN = 256;

/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat (USER_HZ 100). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Soft limit on open files of this process (what `ulimit -n` prints), from /proc/self/limits. */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const latencySummary = (xs: number[]) => ({
  n: xs.length,
  p50_ms: +pct(xs, 0.5).toFixed(1),
  p95_ms: +pct(xs, 0.95).toFixed(1),
  max_ms: +Math.max(...xs).toFixed(1),
});

async function timed(url: string, init: RequestInit = {}): Promise<{ status: number | 'error'; ms: number }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  } catch {
    return { status: 'error', ms: performance.now() - t0 };
  }
}

const statusCounts = (xs: Array<{ status: number | 'error' }>) =>
  xs.reduce<Record<string, number>>((acc, x) => ((acc[String(x.status)] = (acc[String(x.status)] ?? 0) + 1), acc), {});

/** Polls /healthz every `everyMs` (one request after another) until `stop()`; returns every answer. */
function healthPoller(baseUrl: string, everyMs = 20) {
  const answers: Array<{ status: number | 'error'; ms: number }> = [];
  let done = false;
  const loop = (async () => {
    while (!done) {
      answers.push(await timed(`${baseUrl}/healthz`));
      await sleep(everyMs);
    }
  })();
  return {
    answers,
    async stop() {
      done = true;
      await loop;
    },
  };
}

const wsFrameFlood: AbuseDrill = {
  name: 'ws-frame-flood',
  what: `one unauthenticated WebSocket sends ${FRAMES.toLocaleString('en')} non-JSON text frames at once; /healthz polled every 20 ms`,
  async run(env) {
    const pid = env.api.proc.pid!;
    for (let i = 0; i < 5; i++) await timed(`${env.api.baseUrl}/healthz`); // warm
    const ws = new WebSocket(`ws://127.0.0.1:${env.api.port}/v1/ws`);
    let framesReceived = 0;
    ws.on('message', () => framesReceived++);
    ws.on('error', () => undefined);
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    // prebuilt client frames (masked with a zero key), written to the socket in one go: as fast as it can
    const payload = Buffer.from('garbage');
    const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
    const socket = (ws as unknown as { _socket: net.Socket })._socket;
    const poller = healthPoller(env.api.baseUrl);
    await sleep(200);
    const cpu0 = cpuSeconds(pid);
    const t0 = Date.now();
    socket.write(Buffer.concat(Array.from({ length: FRAMES }, () => frame)));
    const end = await Promise.race([closed, sleep(20_000).then(() => ({ code: -1, reason: 'still open after 20 s' }))]);
    const closedAfterMs = Date.now() - t0;
    await sleep(1500); // the tail: /healthz right after the flood
    await poller.stop();
    const cpu = cpuSeconds(pid) - cpu0;
    if (end.code === -1) ws.terminate();
    const health = latencySummary(poller.answers.map((a) => a.ms));
    const statuses = statusCounts(poller.answers);
    const ok = end.code === 1008 && health.max_ms < HEALTH_MAX_MS && poller.answers.every((a) => a.status === 200);
    return {
      ok,
      report: {
        flood_connection: { close_code: end.code, reason: end.reason, closed_after_ms: closedAfterMs, frames_received: framesReceived },
        service_cpu_seconds: +cpu.toFixed(2),
        healthz: { ...health, statuses },
        pass_when: `close 1008, /healthz max < ${HEALTH_MAX_MS} ms, every /healthz 200`,
      },
    };
  },
};

/** Opens `n` idle TCP connections from `localAddress` (nothing sent); resolves once all connected or failed. */
function idleSockets(port: number, n: number, localAddress: string): Promise<net.Socket[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect({ port, host: '127.0.0.1', localAddress });
          s.on('error', () => undefined);
          s.once('connect', () => resolve(s));
          s.once('close', () => resolve(s));
          s.setTimeout(15_000, () => resolve(s));
        }),
    ),
  );
}

const socketFlood: AbuseDrill = {
  name: 'socket-flood',
  what: `up to ${SOCKETS_WANTED} idle TCP sockets from 127.0.0.2 held open; /healthz, /readyz and an authenticated read from 127.0.0.1`,
  async run(env) {
    const pid = env.api.proc.pid!;
    const limit = openFileLimit();
    const n = Math.max(0, Math.min(SOCKETS_WANTED, limit - FD_MARGIN));
    const session = await newUserSession(env.api.baseUrl, env.privy);
    const auth = { headers: { authorization: `Bearer ${session.token}` } };
    const fdsBefore = openFds(pid);
    const t0 = Date.now();
    const flood = await idleSockets(env.api.port, n, '127.0.0.2');
    const openedMs = Date.now() - t0;
    // the listen backlog lets connections in over a few seconds: sample fds and read meanwhile
    const checks: Array<{ what: string; status: number | 'error'; ms: number }> = [];
    let maxFds = fdsBefore;
    for (let i = 0; i < 15; i++) {
      maxFds = Math.max(maxFds, openFds(pid));
      const [h, r, b] = await Promise.all([
        timed(`${env.api.baseUrl}/healthz`),
        timed(`${env.api.baseUrl}/readyz`),
        timed(`${env.api.baseUrl}/v1/user/available_balance`, auth),
      ]);
      checks.push({ what: 'healthz', ...h }, { what: 'readyz', ...r }, { what: 'balance', ...b });
      await sleep(200);
    }
    const stillOpen = flood.filter((s) => !s.destroyed && s.readyState === 'open').length;
    const fdsDuring = openFds(pid);
    for (const s of flood) s.destroy();
    await sleep(500);
    const fdsAfter = openFds(pid);
    const byWhat = Object.fromEntries(
      ['healthz', 'readyz', 'balance'].map((w) => {
        const xs = checks.filter((c) => c.what === w);
        return [w, { ...latencySummary(xs.map((c) => c.ms)), statuses: statusCounts(xs) }];
      }),
    );
    // bounded well below the limit: the per-address cap (default 256) plus the process's own descriptors
    const fdBound = 512;
    const ok = n > 0 && checks.every((c) => c.status === 200) && maxFds - fdsBefore < fdBound;
    return {
      ok,
      report: {
        client_open_file_limit: limit,
        sockets_opened: n,
        opened_in_ms: openedMs,
        client_sockets_still_open: stillOpen,
        service_fds: { before: fdsBefore, max_during: maxFds, at_end_of_hold: fdsDuring, after_release: fdsAfter },
        reads_from_127_0_0_1: byWhat,
        pass_when: `every read 200, service fds grow by < ${fdBound} (${n} sockets offered)`,
      },
    };
  },
};

export const ABUSE_DRILLS: AbuseDrill[] = [wsFrameFlood, socketFlood];
