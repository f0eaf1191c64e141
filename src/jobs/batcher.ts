// Group commit for jobs: each job submits its key and waits for its own answer; keys that arrive while a
// batch is running wait for it and then run together as the next batch (at most `max` at a time), so one
// transaction serves every job the worker holds at that moment instead of one each. A batch that throws is
// run again key by key, so one bad key fails its own job only.
export interface Batcher<R> {
  submit(key: string): Promise<R>;
}

export function createBatcher<R>(run: (keys: readonly string[]) => Promise<Map<string, R>>, max: number): Batcher<R> {
  const queue: Array<{ key: string; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  let running = false;

  const runOne = async (w: (typeof queue)[number]) => {
    try {
      w.resolve((await run([w.key])).get(w.key)!);
    } catch (err) {
      w.reject(err);
    }
  };

  async function drain(): Promise<void> {
    running = true;
    while (queue.length) {
      const batch = queue.splice(0, max);
      if (batch.length === 1) {
        await runOne(batch[0]!);
        continue;
      }
      try {
        const out = await run(batch.map((w) => w.key));
        for (const w of batch) w.resolve(out.get(w.key)!);
      } catch {
        for (const w of batch) await runOne(w);
      }
    }
    running = false;
  }

  return {
    submit: (key) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ key, resolve, reject });
        if (!running) void drain();
      }),
  };
}
