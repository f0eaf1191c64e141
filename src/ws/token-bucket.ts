// A token bucket of `ratePerSecond` tokens refilled continuously at that rate (a burst of up to one second's
// worth, then the rate). Used for the per-connection quote budget (MM_MAX_QUOTES_PER_SECOND); O(1), no timers.
export class TokenBucket {
  private tokens: number;
  private lastMs: number;
  constructor(
    private readonly ratePerSecond: number,
    nowMs: number,
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    this.tokens = ratePerSecond;
    this.lastMs = nowMs;
  }

  /** Takes one token; false (and nothing taken) when the bucket is empty. */
  take(nowMs: number): boolean {
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsed = Math.max(0, nowMs - this.lastMs);
    this.tokens = Math.min(this.ratePerSecond, this.tokens + (elapsed * this.ratePerSecond) / 1000);
    this.lastMs = Math.max(this.lastMs, nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
