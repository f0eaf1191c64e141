// Bounds of the market-maker WebSocket (spec/asyncapi.yaml "Rules" and "Close codes").

/** Frames above this close the connection with 1009 (ws enforces it while reading). */
export const MAX_PAYLOAD_BYTES = 4096;
/**
 * A connection whose unsent outbound data exceeds this is a reader that does not keep up: it is dropped
 * (terminated: a close frame could not get through either). Every server message is under 300 bytes, so
 * this is hundreds of unread messages.
 */
export const MAX_BUFFERED_BYTES = 64 * 1024;
/** auth_response frames verified per connection; the next one closes the connection with 1008. */
export const MAX_AUTH_ATTEMPTS = 10;

export const CLOSE = {
  shuttingDown: 1001,
  policyViolation: 1008,
  tooLarge: 1009,
  authTimeout: 4001,
  missedPongs: 4002,
  sessionExpired: 4003,
  removed: 4004,
} as const;

/** Open connections per client IP on this process. */
export class IpConnectionCounter {
  private readonly counts = new Map<string, number>();
  constructor(readonly max: number) {}

  /** Takes a slot for `ip`; false when the IP already holds the maximum. */
  tryAcquire(ip: string): boolean {
    const n = this.counts.get(ip) ?? 0;
    if (n >= this.max) return false;
    this.counts.set(ip, n + 1);
    return true;
  }

  release(ip: string): void {
    const n = (this.counts.get(ip) ?? 0) - 1;
    if (n <= 0) this.counts.delete(ip);
    else this.counts.set(ip, n);
  }

  count(ip: string): number {
    return this.counts.get(ip) ?? 0;
  }
}

/** Words for a close code without a reason, for the logs. */
export function closeMeaning(code: number): string {
  switch (code) {
    case 1000:
      return 'normal closure';
    case 1001:
      return 'going away';
    case 1005:
      return 'no status';
    case 1006:
      return 'abnormal closure (no close frame)';
    case 1009:
      return 'frame too large';
    default:
      return 'closed';
  }
}

/** Why an upgrade is refused (HTTP 429 either way). */
export type SlotRefusal = 'too_many_connections' | 'too_many_unauthenticated';

/**
 * Counting of market-maker connections per client address, authenticated and not. The gateway asks
 * `check` before the WebSocket handshake (to answer 429 cheaply), `open` once it completed (a connection
 * starts unauthenticated), `authenticated` when it authenticates, and `close` when it closes. An
 * implementation that counts across processes plugs in here; `LocalConnectionSlots` counts this process.
 */
export interface ConnectionSlots {
  check(ip: string): SlotRefusal | null;
  open(ip: string): SlotRefusal | null;
  authenticated(ip: string): void;
  close(ip: string, wasAuthenticated: boolean): void;
}

/** Per-process slots: at most `maxPerIp` connections per address, of which at most `maxUnauthenticatedPerIp` unauthenticated. */
export class LocalConnectionSlots implements ConnectionSlots {
  private readonly all: IpConnectionCounter;
  private readonly unauthenticated: IpConnectionCounter;
  constructor(maxPerIp: number, maxUnauthenticatedPerIp: number) {
    this.all = new IpConnectionCounter(maxPerIp);
    this.unauthenticated = new IpConnectionCounter(maxUnauthenticatedPerIp);
  }

  check(ip: string): SlotRefusal | null {
    if (this.all.count(ip) >= this.all.max) return 'too_many_connections';
    if (this.unauthenticated.count(ip) >= this.unauthenticated.max) return 'too_many_unauthenticated';
    return null;
  }

  open(ip: string): SlotRefusal | null {
    const refusal = this.check(ip);
    if (refusal) return refusal;
    this.all.tryAcquire(ip);
    this.unauthenticated.tryAcquire(ip);
    return null;
  }

  authenticated(ip: string): void {
    this.unauthenticated.release(ip);
  }

  close(ip: string, wasAuthenticated: boolean): void {
    this.all.release(ip);
    if (!wasAuthenticated) this.unauthenticated.release(ip);
  }
}

export interface FrameLimits {
  /** Bucket size and refill rate (frames per second). */
  framesPerSecond: number;
  /** Frames waiting behind the one being handled. */
  maxQueuedFrames: number;
  /** Frames counted before authentication. */
  maxUnauthenticatedFrames: number;
}

/**
 * Per-connection inbound frame budget: a token bucket of `framesPerSecond` frames refilled at that rate,
 * and a count of frames sent before authentication. Every method is O(1).
 */
export class FrameBudget {
  private tokens: number;
  private lastMs: number;
  private unauthenticatedFrames = 0;
  constructor(
    private readonly limits: FrameLimits,
    nowMs: number,
  ) {
    this.tokens = limits.framesPerSecond;
    this.lastMs = nowMs;
  }

  /** Takes one frame from the bucket; false when the connection sends faster than the limit. */
  takeFrame(nowMs: number): boolean {
    const rate = this.limits.framesPerSecond;
    this.tokens = Math.min(rate, this.tokens + ((nowMs - this.lastMs) * rate) / 1000);
    this.lastMs = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Counts a frame sent before authentication; false past the limit. */
  takeUnauthenticated(): boolean {
    this.unauthenticatedFrames += 1;
    return this.unauthenticatedFrames <= this.limits.maxUnauthenticatedFrames;
  }
}
