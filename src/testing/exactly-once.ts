// The fault scaffolding of the exactly-once tests (src/http/exactly-once.int.test.ts, rfq-exactly-once.int.test.ts):
// a retry that must replay the committed write, twice, and an API process SIGKILLed between commit and response.
import { expect } from 'vitest';
import { startServiceProcess } from './service-process.js';

/** An answer from the generated SDK (`send()` of sdk-client.ts: data or error) or from a raw JSON call (body). */
interface Answer {
  status: number;
  headers: Headers;
  body?: unknown;
  data?: unknown;
  error?: unknown;
}
const bodyOf = (a: Answer) => a.body ?? a.data ?? a.error;

/** Sends the same request twice on a healthy service: both replay (same status and body), and `check` holds after each. */
export async function expectReplayed<R extends Answer>(
  send: () => Promise<R>,
  status: number,
  check: (res: R) => Promise<void>,
): Promise<R> {
  const replay = await send();
  expect(replay.status, JSON.stringify(bodyOf(replay))).toBe(status);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  await check(replay);
  // Once more: still the same answer, still one write.
  const again = await send();
  expect(again.status).toBe(status);
  expect(bodyOf(again)).toEqual(bodyOf(replay));
  await check(again);
  return replay;
}

/**
 * An extra API process on `env` (same database and queues) that SIGKILLs itself right after `operationId`'s
 * write commits: `send` to it fails, and the process is gone by SIGKILL when this returns.
 */
export async function sendToProcessKilledAfterCommit(
  env: Record<string, string | undefined>,
  operationId: string,
  send: (baseUrl: string) => Promise<unknown>,
): Promise<void> {
  const killed = await startServiceProcess({ env: { ...env, FAILPOINTS: `after-commit:${operationId}=kill` }, args: ['--role=api'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => killed.proc.once('exit', (_code, signal) => resolve(signal)));
  await expect(send(killed.baseUrl)).rejects.toThrow();
  expect(await exited).toBe('SIGKILL');
}
