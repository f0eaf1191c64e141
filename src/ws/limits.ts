// Bounds of the market-maker WebSocket (spec/asyncapi.yaml "Rules" and "Close codes").
import { clientNetwork } from '../http/client-address.js';

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
  /** A user-channel connection whose session was revoked (logout). */
  revoked: 4005,
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

/**
 * `slots` counted per client network rather than per address (`clientNetwork`, src/http/client-address.ts:
 * IPv6 by its /56, as the HTTP rate limit counts), so that one IPv6 host cannot take a new address per
 * connection. Callers keep passing the address (logs show it).
 */
export function slotsByNetwork(slots: ConnectionSlots): ConnectionSlots {
  return {
    check: (ip) => slots.check(clientNetwork(ip)),
    open: (ip) => slots.open(clientNetwork(ip)),
    authenticated: (ip) => slots.authenticated(clientNetwork(ip)),
    close: (ip, wasAuthenticated) => slots.close(clientNetwork(ip), wasAuthenticated),
  };
}

export interface FrameLimits {
  /** Refill rate of the frame bucket (frames per second): the rate a connection may keep up. */
  framesPerSecond: number;
  /** Size of the frame bucket: frames a connection may send at once (a burst of quotes) before the rate applies. */
  frameBurst: number;
  /** Frames waiting behind the one being handled; more are answered `rate_limited` at once. */
  maxQueuedFrames: number;
  /** Frames counted before authentication. */
  maxUnauthenticatedFrames: number;
}

/** Frames that are not a JSON object with a known `type` (junk): a bucket of this many... */
export const JUNK_FRAME_BURST = 32;
/** ...refilled at this rate per second. Past it the connection is closed 1008. */
export const JUNK_FRAMES_PER_SECOND = 2;

/** A bucket of `size` tokens refilled at `perSecond`; O(1), no timers. */
class Bucket {
  private tokens: number;
  constructor(
    private readonly size: number,
    private readonly perSecond: number,
    private lastMs: number,
  ) {
    this.tokens = size;
  }

  take(nowMs: number): boolean {
    this.tokens = Math.min(this.size, this.tokens + (Math.max(0, nowMs - this.lastMs) * this.perSecond) / 1000);
    this.lastMs = Math.max(this.lastMs, nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * Per-connection inbound frame budget: a bucket of `frameBurst` frames refilled at `framesPerSecond`, a
 * smaller bucket for junk frames, and a count of frames sent before authentication. Every method is O(1).
 */
export class FrameBudget {
  private readonly frames: Bucket;
  private readonly junk: Bucket;
  private unauthenticatedFrames = 0;
  constructor(
    private readonly limits: FrameLimits,
    nowMs: number,
  ) {
    this.frames = new Bucket(Math.max(limits.frameBurst, limits.framesPerSecond), limits.framesPerSecond, nowMs);
    this.junk = new Bucket(JUNK_FRAME_BURST, JUNK_FRAMES_PER_SECOND, nowMs);
  }

  /** Takes one frame from the bucket; false when the connection sends faster than the limit. */
  takeFrame(nowMs: number): boolean {
    return this.frames.take(nowMs);
  }

  /** Takes one junk frame; false past the junk budget. */
  takeJunk(nowMs: number): boolean {
    return this.junk.take(nowMs);
  }

  /** Counts a frame sent before authentication; false past the limit. */
  takeUnauthenticated(): boolean {
    this.unauthenticatedFrames += 1;
    return this.unauthenticatedFrames <= this.limits.maxUnauthenticatedFrames;
  }
}
