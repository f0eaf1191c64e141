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
  constructor(private readonly max: number) {}

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
