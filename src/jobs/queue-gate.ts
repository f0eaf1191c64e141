// Enqueues after a commit are bounded: a lost enqueue is the outbox relay's, never a request hanging until
// Redis returns. The request-side gate (wait for the queue, else 503) is src/http/queue-gate.ts.

/** `p`, or a rejection after `ms` (the operation itself goes on in the background); `timeoutError` makes the rejection recognisable. */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string, timeoutError?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError?.() ?? new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  p.catch(() => undefined); // a late failure after the deadline is not an unhandled rejection
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** The same producer whose enqueue() gives up after `ms` (the caller leaves the job to a relay). */
export function boundEnqueue<P extends { enqueue(id: string): Promise<void> }>(producer: P, ms: number): P {
  return { ...producer, enqueue: (id: string) => withDeadline(producer.enqueue(id), ms, 'enqueue') };
}
