// Pure RFQ window arithmetic (docs/trading.md, "Words": windows): windows start at multiples of their duration
// since the Unix epoch; betting closes `bufferMs` before a window ends; the "current" window is the one
// containing now, or the next one once now has reached its betting close.

export interface WindowBounds {
  startAtMs: number;
  bettingClosesAtMs: number;
}

/** Start (Unix ms) of the window of `durationSecs` that contains `nowMs`. */
export function windowStart(nowMs: number, durationSecs: number): number {
  const d = durationSecs * 1000;
  return Math.floor(nowMs / d) * d;
}

export function isAligned(startMs: number, durationSecs: number): boolean {
  return Number.isSafeInteger(startMs) && startMs % (durationSecs * 1000) === 0;
}

export function bettingClosesAt(startMs: number, durationSecs: number, bufferMs: number): number {
  return startMs + durationSecs * 1000 - bufferMs;
}

/**
 * The window takers should trade at `nowMs`: the one containing now while now < its betting close,
 * else the next one (exactly at betting close, the next). `bufferMs` must be below `durationSecs * 1000`
 * (config validation refuses other values), so the next window's betting close is always ahead of now.
 */
export function currentWindow(nowMs: number, durationSecs: number, bufferMs: number): WindowBounds {
  assertBuffer(durationSecs, bufferMs);
  let start = windowStart(nowMs, durationSecs);
  if (nowMs >= bettingClosesAt(start, durationSecs, bufferMs)) start += durationSecs * 1000;
  return { startAtMs: start, bettingClosesAtMs: bettingClosesAt(start, durationSecs, bufferMs) };
}

/** The current window and the one after it: what the rollover keeps created ahead of time. */
export function windowsToPrepare(nowMs: number, durationSecs: number, bufferMs: number): [number, number] {
  const { startAtMs } = currentWindow(nowMs, durationSecs, bufferMs);
  return [startAtMs, startAtMs + durationSecs * 1000];
}

function assertBuffer(durationSecs: number, bufferMs: number): void {
  if (!(bufferMs >= 0 && bufferMs < durationSecs * 1000)) {
    throw new RangeError(`betting-close buffer ${bufferMs} ms must be >= 0 and < the ${durationSecs} s window`);
  }
}
