// Request-level behaviours of the provider stand-in (src/testing/rpc-provider.ts): rate limiting (HTTP 429 with
// `Retry-After` and the provider's JSON-RPC error, rpc-provider-errors.ts) and stalled requests. Both act on a
// whole HTTP request: a batch carrying any matching call is refused or held whole, as a provider's edge does.
// Note for clients: viem 2.57 turns a 429 whose body is a JSON-RPC error into an RPC error (codes 429, -32005 and
// -32007 are retried with its own exponential backoff) and reads `Retry-After` only from a 429 without one
// (`provider: 'plain'`); a service that must honour Retry-After reads the header itself.
import { rateLimitedReply, type RateLimitBody } from './rpc-provider-errors.js';
import type { RpcCall } from './rpc-provider-types.js';

export interface RateLimitOptions {
  /** Whose 429 body (default `alchemy`; `plain`: a bare text body). */
  provider?: RateLimitBody;
  /** Only requests carrying a call of these methods; omitted: every request. */
  methods?: readonly string[];
  /** Refuse the next `requests` matching HTTP requests, then let them through. */
  requests?: number;
  /** Refuse matching requests for this long (ms, the proxy's clock) from now. */
  forMs?: number;
  /** The `Retry-After` header, in seconds (default 1). */
  retryAfterSeconds?: number;
}

interface Limit {
  provider: RateLimitBody;
  methods: Set<string> | undefined;
  remaining: number | undefined;
  until: number | undefined;
  retryAfterSeconds: number;
}

const matches = (methods: Set<string> | undefined, calls: RpcCall[]) => !methods || calls.some((c) => methods.has(c.method));

export class RateLimits {
  private limits: Limit[] = [];
  /** HTTP requests answered 429 since the start or the last resetCounts(). */
  refused = 0;

  add(opts: RateLimitOptions, now: number): void {
    this.limits.push({
      provider: opts.provider ?? 'alchemy',
      methods: opts.methods ? new Set(opts.methods) : undefined,
      remaining: opts.requests,
      until: opts.forMs === undefined ? undefined : now + opts.forMs,
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
    });
  }

  clear(): void {
    this.limits = [];
  }

  /** The 429 to answer, if a limit applies to this request (and counts it against that limit). */
  check(calls: RpcCall[], batch: boolean, now: number): { headers: Record<string, string>; body: string } | undefined {
    this.limits = this.limits.filter((l) => (l.remaining === undefined || l.remaining > 0) && (l.until === undefined || now < l.until));
    const limit = this.limits.find((l) => matches(l.methods, calls));
    if (!limit) return undefined;
    if (limit.remaining !== undefined) limit.remaining--;
    this.refused++;
    const retryAfter = { 'retry-after': String(limit.retryAfterSeconds) };
    const provider = limit.provider;
    if (provider === 'plain') return { headers: { ...retryAfter, 'content-type': 'text/plain' }, body: 'Too Many Requests' };
    const replies = calls.map((c) => rateLimitedReply(provider, c, limit.retryAfterSeconds));
    return { headers: { ...retryAfter, 'content-type': 'application/json' }, body: JSON.stringify(batch ? replies : replies[0]) };
  }
}

export interface StallOptions {
  /** Only requests carrying a call of these methods; omitted: every request. */
  methods?: readonly string[];
  /** Hold each matching request this long (ms, real time); omitted: until released. */
  ms?: number;
  /** Stall only the next `requests` matching HTTP requests. */
  requests?: number;
  /**
   * `request` (default): held before it reaches the node (nothing happened yet); `response`: the node has
   * answered (a transaction is broadcast) but the answer is held, so a client that gives up never learns it.
   */
  phase?: 'request' | 'response';
}

export interface Stall {
  /** Lets every request this stall holds go on, and stalls no more. */
  release(): void;
  /** Requests this stall has held so far. */
  held(): number;
}

interface StallRule {
  methods: Set<string> | undefined;
  ms: number | undefined;
  remaining: number | undefined;
  phase: 'request' | 'response';
  released: Promise<void>;
  release: () => void;
  held: number;
}

export class Stalls {
  private rules: StallRule[] = [];

  add(opts: StallOptions): Stall {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const rule: StallRule = {
      methods: opts.methods ? new Set(opts.methods) : undefined,
      ms: opts.ms,
      remaining: opts.requests,
      phase: opts.phase ?? 'request',
      released,
      release,
      held: 0,
    };
    this.rules.push(rule);
    return {
      release: () => {
        this.rules = this.rules.filter((r) => r !== rule);
        rule.release();
      },
      held: () => rule.held,
    };
  }

  releaseAll(): void {
    for (const r of this.rules) r.release();
    this.rules = [];
  }

  /** Holds the request while a stall of this phase applies to it. */
  async wait(calls: RpcCall[], phase: 'request' | 'response'): Promise<void> {
    const rule = this.rules.find((r) => r.phase === phase && (r.remaining === undefined || r.remaining > 0) && matches(r.methods, calls));
    if (!rule) return;
    if (rule.remaining !== undefined) rule.remaining--;
    rule.held++;
    let timer: NodeJS.Timeout | undefined;
    const waits = [rule.released];
    if (rule.ms !== undefined) waits.push(new Promise<void>((r) => (timer = setTimeout(r, rule.ms))));
    await Promise.race(waits);
    clearTimeout(timer);
  }
}
