// Failpoints: deterministic fault injection for the exactly-once tests and the fault drills. Set with
// FAILPOINTS (parsed and refused under NODE_ENV=production by src/config/load.ts), e.g.
//   FAILPOINTS=after-commit:createDeposit=kill,after-commit:creditAppTokens=error
// `kill` SIGKILLs the process on the spot; `error` throws what a dropped database connection throws
// (SQLSTATE 08006). With no failpoint set, failpoint() costs one Map lookup.
export type FailpointAction = 'kill' | 'error';

const active = new Map<string, FailpointAction>();

export const FAILPOINT_NAME = /^[a-z-]+:[A-Za-z]+$/;

/** Parses `name=action,...`; returns the map or the problems. Pure. */
export function parseFailpoints(spec: string): { points: Record<string, FailpointAction>; problems: string[] } {
  const points: Record<string, FailpointAction> = {};
  const problems: string[] = [];
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name = '', action = ''] = part.split('=');
    if (!FAILPOINT_NAME.test(name)) problems.push(`${part}: the name must look like after-commit:createDeposit`);
    else if (action !== 'kill' && action !== 'error') problems.push(`${part}: the action must be kill or error`);
    else points[name] = action;
  }
  return { points, problems };
}

export function setFailpoints(points: Readonly<Record<string, FailpointAction>>): void {
  active.clear();
  for (const [k, v] of Object.entries(points)) active.set(k, v);
}

/** The error a failpoint throws: shaped like pg's error for a connection lost mid-request. */
export class FailpointError extends Error {
  readonly code = '08006';
  constructor(name: string) {
    super(`failpoint ${name}: connection to the database lost (injected)`);
    this.name = 'FailpointError';
  }
}

export function failpoint(name: string): void {
  const action = active.get(name);
  if (!action) return;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  throw new FailpointError(name);
}
