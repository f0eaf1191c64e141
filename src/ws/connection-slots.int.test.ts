// Issue 15 #8: a process that crashes while holding WebSocket slots does not keep them: its leases expire
// (they are renewed only by the living process). A real child process takes the slots and is SIGKILLed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { TEST_REDIS_URL, uniquePrefix } from '../testing/postgres.js';
import { createSharedConnectionCap } from './connection-slots.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers) await c();
});

const TTL_MS = 1500;

/** A child process that takes `n` slots for `ip` (renewing them), prints "held", and waits to be killed. */
function holder(prefix: string, ip: string, n: number) {
  const code = `
    import { createSharedConnectionCap } from './src/ws/connection-slots.ts';
    import { createLogger } from './src/logger.ts';
    const slots = createSharedConnectionCap({ deployment: 'production', redisUrl: ${JSON.stringify(TEST_REDIS_URL)}, prefix: ${JSON.stringify(prefix)},
      orm: undefined, max: ${n}, log: createLogger('silent'), ttlMs: ${TTL_MS} });
    for (let i = 0; i < ${n}; i++) if (!(await slots.acquire(${JSON.stringify(ip)}))) throw new Error('refused');
    console.log('held');
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const held = new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    proc.once('exit', (c) => reject(new Error(`holder exited ${c}`)));
  });
  return { proc, held };
}

describe('WebSocket connection slots across processes (Redis)', () => {
  it('slots held by a living process are refused to others; a SIGKILLed holder frees them within the lease', async () => {
    const prefix = uniquePrefix('slots');
    const ip = '192.0.2.7';
    const mine = createSharedConnectionCap({
      deployment: 'production',
      redisUrl: TEST_REDIS_URL,
      prefix,
      orm: undefined as never,
      max: 2,
      log: createLogger('silent'),
      ttlMs: TTL_MS,
    });
    closers.push(() => mine.close());
    const other = holder(prefix, ip, 2);
    closers.push(async () => void other.proc.kill('SIGKILL'));
    await other.held;
    // Held and renewed: still refused well after one lease length.
    await new Promise((r) => setTimeout(r, TTL_MS * 2));
    expect(await mine.acquire(ip)).toBeNull();
    other.proc.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, TTL_MS + 300));
    const a = await mine.acquire(ip);
    const b = await mine.acquire(ip);
    expect(a).toBeTypeOf('function');
    expect(b).toBeTypeOf('function');
    expect(await mine.acquire(ip)).toBeNull();
    a!();
    await new Promise((r) => setTimeout(r, 100));
    expect(await mine.acquire(ip)).toBeTypeOf('function');
  }, 30_000);
});
