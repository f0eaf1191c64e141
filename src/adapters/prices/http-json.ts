// One GET of a price source's public REST API (docs/prices.md, "Failures"). Each try gives up after
// `timeoutMs`; a timeout, a network error and a 5xx are retried `retries` times with doubling backoff. The
// statuses that say "stop asking" are never retried:
//   429 / 418  the source's circuit opens (shared by every process, src/domain/prices/circuit.ts) until the answer's
//              Retry-After has passed, in full (no cap): `rate_limited` / `banned`. Without a Retry-After:
//              60 s for a 429, 2 minutes for a 418 (the shortest ban Binance documents).
//   451 / 403 / 401  `blocked`: the source refuses this deployment (region, firewall, missing key).
// A 5xx whose Retry-After asks for more than RETRY_AFTER_WAIT_MS opens the circuit too. While a circuit is
// open no request leaves: the call throws at once. Any other status throws `source_error` with the status and
// the answer's first characters (read by the adapters: an unknown symbol, a missing update). JSON numbers come
// back as their source text ("97123.45"), so a price never passes through a float. No error message carries
// the URL: it may hold a key.
import type { SourceCircuit } from './circuit.js';
import { Abstain } from './reasons.js';

export interface HttpSourceOptions {
  timeoutMs: number;
  retries: number;
  /** First backoff; doubles on each retry (default 200 ms). */
  backoffMs?: number;
  /** The source's name (its circuit's key). */
  source?: string;
  /** The shared circuit; none: no gate (tests of one adapter). */
  circuit?: SourceCircuit;
  /** Extra request headers (Authorization for a keyed source). */
  headers?: Readonly<Record<string, string>>;
  now?: () => number;
}

/** An answer of the wrong shape (kept for the adapters' checks). */
export class SourceError extends Abstain {
  constructor(message: string) {
    super('malformed_answer', message);
  }
}

/** A 5xx may ask for this long before the next try; a longer Retry-After opens the circuit instead. */
export const RETRY_AFTER_WAIT_MS = 5_000;
const DEFAULT_429_MS = 60_000;
const DEFAULT_418_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON.parse keeping every number as the exact text it was written with (Node 24: the reviver's source context). */
export function parseJsonKeepingNumbers(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? context.source : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** Retry-After in ms: delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

async function gate(opts: HttpSourceOptions, now: number): Promise<void> {
  if (!opts.circuit || !opts.source) return;
  const open = await opts.circuit.state(opts.source, now);
  if (open) {
    const reason = open.reason === 'unavailable' ? 'source_error' : open.reason;
    throw new Abstain(reason, `${opts.source}: no request until ${new Date(open.untilMs).toISOString()} (${open.reason})`, {
      untilMs: open.untilMs,
    });
  }
}

async function openCircuit(opts: HttpSourceOptions, untilMs: number, reason: 'rate_limited' | 'banned' | 'unavailable'): Promise<void> {
  if (opts.circuit && opts.source) await opts.circuit.open(opts.source, untilMs, reason);
}

export async function getJson(url: string, opts: HttpSourceOptions): Promise<unknown> {
  const now = opts.now ?? Date.now;
  const backoff = opts.backoffMs ?? 200;
  let last = '';
  let lastReason: 'timeout' | 'unreachable' | 'source_error' = 'source_error';
  for (let attempt = 0, wait = 0; attempt <= opts.retries; attempt++) {
    if (attempt > 0) await sleep(Math.max(wait, backoff * 2 ** (attempt - 1)));
    await gate(opts, now());
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs), headers: { accept: 'application/json', ...opts.headers } });
      text = await res.text(); // the body read is under the same timeout
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      lastReason = timedOut ? 'timeout' : 'unreachable';
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      last = timedOut ? `no answer within ${opts.timeoutMs} ms` : `request failed${cause ? ` (${cause})` : ''}`;
      continue;
    }
    const body = text.slice(0, 200);
    const after = retryAfterMs(res.headers.get('retry-after'), now());
    if (res.status === 429 || res.status === 418) {
      const banned = res.status === 418;
      const untilMs = now() + (after ?? (banned ? DEFAULT_418_MS : DEFAULT_429_MS));
      await openCircuit(opts, untilMs, banned ? 'banned' : 'rate_limited');
      throw new Abstain(banned ? 'banned' : 'rate_limited', `HTTP ${res.status}: no request until ${new Date(untilMs).toISOString()}`, {
        status: res.status,
        body,
        untilMs,
      });
    }
    if (res.status === 451 || res.status === 403 || res.status === 401) {
      throw new Abstain('blocked', `HTTP ${res.status}: ${body}`, { status: res.status, body });
    }
    if (res.status >= 500) {
      last = `HTTP ${res.status}`;
      lastReason = 'source_error';
      if (after !== null && after > RETRY_AFTER_WAIT_MS) {
        const untilMs = now() + after;
        await openCircuit(opts, untilMs, 'unavailable');
        throw new Abstain('source_error', `HTTP ${res.status}: no request until ${new Date(untilMs).toISOString()}`, {
          status: res.status,
          body,
          untilMs,
        });
      }
      wait = after ?? 0;
      continue;
    }
    if (res.status !== 200) throw new Abstain('source_error', `HTTP ${res.status}: ${body}`, { status: res.status, body });
    try {
      return parseJsonKeepingNumbers(text);
    } catch {
      throw new SourceError(`answer is not JSON: ${text.slice(0, 100)}`);
    }
  }
  throw new Abstain(lastReason, `${last} (after ${opts.retries + 1} tries)`);
}
