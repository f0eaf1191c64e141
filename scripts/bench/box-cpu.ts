// Where a benchmark's CPU goes on this host: CPU time of every process between two snapshots, read from
// /proc (Linux only), grouped as the named service processes (with their children, e.g. BullMQ workers),
// this process, PostgreSQL, Redis and the rest, next to the host's idle time. Divided by the work done in
// between it gives the whole box's CPU per unit of work, the budget a throughput ceiling has to fit in.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux x86_64

interface Proc {
  ppid: number;
  comm: string;
  ticks: number;
}

export interface BoxSnapshot {
  at: number;
  procs: Map<number, Proc>;
  /** Host-wide idle + iowait ticks, and all ticks (every core). */
  idle: number;
  total: number;
}

/** One process's /proc/<pid>/stat; throws when it has exited. */
function readProc(pid: number | string): Proc {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // pid (comm) state ppid ... field 14 utime, 15 stime; comm may hold spaces and parentheses.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const f = stat.slice(close + 2).split(' ');
  return { ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]) };
}

/** CPU ms (user + system) a process has used so far. */
export const processCpuMs = (pid: number): number => readProc(pid).ticks * TICK_MS;

function readProcs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.set(Number(name), readProc(name));
    } catch {
      continue; // exited meanwhile
    }
  }
  return out;
}

export function boxSnapshot(): BoxSnapshot {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { at: Date.now(), procs: readProcs(), idle: cpu[3]! + cpu[4]!, total: cpu.reduce((s, x) => s + x, 0) };
}

export interface BoxCpu {
  elapsedMs: number;
  /** CPU ms per group over the interval, largest first; groups: the names given, 'this process', 'postgres', 'redis', 'other'. */
  groups: Array<{ name: string; ms: number }>;
  /** Share of the host's CPU left idle over the interval. */
  idleShare: number;
}

/** CPU between two snapshots; `named` maps a label to a root pid (its descendants count with it). */
export function boxCpu(from: BoxSnapshot, to: BoxSnapshot, named: Record<string, number>): BoxCpu {
  const rootOf = (pid: number): string | undefined => {
    for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = to.procs.get(p)?.ppid, hops++) {
      for (const [label, root] of Object.entries(named)) if (p === root) return label;
      if (p === process.pid) return 'this process';
    }
    return undefined;
  };
  const sums = new Map<string, number>();
  for (const [pid, p] of to.procs) {
    const delta = p.ticks - (from.procs.get(pid)?.ticks ?? 0);
    if (delta <= 0) continue;
    const group = rootOf(pid) ?? (p.comm.startsWith('postgres') ? 'postgres' : p.comm.startsWith('redis') ? 'redis' : 'other');
    sums.set(group, (sums.get(group) ?? 0) + delta * TICK_MS);
  }
  const total = to.total - from.total;
  return {
    elapsedMs: to.at - from.at,
    groups: [...sums].map(([name, ms]) => ({ name, ms })).sort((x, y) => y.ms - x.ms),
    idleShare: total > 0 ? (to.idle - from.idle) / total : 0,
  };
}

/** "A 9.6, postgres 3.1, ... ms of CPU per fill; host 4% idle". */
export function describePer(cpu: BoxCpu, units: number, unit: string): string {
  const per = cpu.groups.map((g) => `${g.name} ${(g.ms / units).toFixed(1)}`).join(', ');
  const sum = cpu.groups.reduce((s, g) => s + g.ms, 0) / units;
  return `CPU ms per ${unit}: ${per} (sum ${sum.toFixed(1)}); host ${(100 * cpu.idleShare).toFixed(0)}% idle`;
}
