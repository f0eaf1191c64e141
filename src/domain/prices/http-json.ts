// One GET of an exchange's public REST API for a price source (docs/prices.md): each try gives up after
// `timeoutMs`; a timeout, a network error, 429 and 5xx are retried `retries` times with doubling backoff
// (429/503 honour Retry-After up to 5 s); any other status or a body that is not JSON fails the request. JSON
// numbers come back as their source text ("97123.45"), so a price never passes through a float.

export interface HttpSourceOptions {
  timeoutMs: number;
  retries: number;
  /** First backoff; doubles on each retry (default 200 ms). */
  backoffMs?: number;
}

/** A request to a price source that failed for good (after its retries). */
export class SourceError extends Error {
  override name = 'SourceError';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON.parse keeping every number as the exact text it was written with (Node 24: the reviver's source context). */
export function parseJsonKeepingNumbers(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? context.source : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

function retryAfterMs(res: Response): number | null {
  const h = res.headers.get('retry-after');
  if (!h || !/^\d+$/.test(h.trim())) return null;
  return Math.min(Number(h) * 1000, 5000);
}

export async function getJson(url: string, opts: HttpSourceOptions): Promise<unknown> {
  const backoff = opts.backoffMs ?? 200;
  let last = '';
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    if (attempt > 0) await sleep(backoff * 2 ** (attempt - 1));
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs), headers: { accept: 'application/json' } });
      text = await res.text(); // the body read is under the same timeout
    } catch (err) {
      last = (err as Error).name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : `request failed: ${(err as Error).message}`;
      continue;
    }
    if (res.status === 429 || res.status >= 500) {
      last = `HTTP ${res.status}`;
      const wait = retryAfterMs(res);
      if (wait !== null && attempt < opts.retries) await sleep(wait);
      continue;
    }
    if (res.status !== 200) throw new SourceError(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    try {
      return parseJsonKeepingNumbers(text);
    } catch {
      throw new SourceError(`answer is not JSON: ${text.slice(0, 100)}`);
    }
  }
  throw new SourceError(`${last} (after ${opts.retries + 1} tries)`);
}
