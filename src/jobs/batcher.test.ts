import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('createBatcher', () => {
  it('runs the first key alone, then everything that arrived meanwhile as one batch (at most max)', async () => {
    const batches: string[][] = [];
    const b = createBatcher(async (keys) => {
      batches.push([...keys]);
      await tick();
      return new Map(keys.map((k) => [k, `done ${k}`]));
    }, 3);
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => b.submit(k)));
    expect(answers).toEqual(['done a', 'done b', 'done c', 'done d', 'done e', 'done f']);
    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e', 'f']]);
  });

  it('reruns a failed batch key by key: only the bad key fails', async () => {
    const batches: string[][] = [];
    const b = createBatcher(async (keys) => {
      batches.push([...keys]);
      await tick();
      if (keys.includes('bad')) throw new Error(`bad in ${keys.join(',')}`);
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    }, 10);
    const results = await Promise.allSettled(['first', 'x', 'bad', 'y'].map((k) => b.submit(k)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'FIRST',
      'X',
      'bad in bad',
      'Y',
    ]);
    expect(batches).toEqual([['first'], ['x', 'bad', 'y'], ['x'], ['bad'], ['y']]);
    // It keeps serving after a failure.
    expect(await b.submit('z')).toBe('Z');
  });
});
