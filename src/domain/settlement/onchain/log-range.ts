// The deposit listener's eth_getLogs block range, adapted to what the provider accepts (docs/settlement-custodial.md,
// "Providers' eth_getLogs caps"). Hosted providers cap a log query by blocks or by results, each with its own error:
//   Alchemy    -32602 "Log response size exceeded ..." (10K logs over more than 2K blocks), -32600 "You can make
//              eth_getLogs requests with up to a N block range" (a plan's range cap)
//   Infura     -32005 "query returned more than 10000 results", -32602 "range R exceeds limit of N"
//   QuickNode  HTTP 413, -32614 "eth_getLogs is limited to a 5 range"
// On such an error the range is halved (down to one block) and the same blocks are asked again; after GROW_AFTER
// answered ranges in a row it doubles again, up to CHAIN_LOG_BLOCK_RANGE. Any other error is not a range error
// and fails the scan as before. Pure: the listener keeps one per process (state is only a size hint).

/** JSON-RPC error codes providers answer a too-large eth_getLogs with. */
const RANGE_CODES = new Set([-32602, -32600, -32005, -32614]);
/** Words of providers' range and size refusals (a proxy may re-wrap the code). */
const RANGE_TEXT = /block range|range .* exceeds|exceeds? .*limit|more than \d+ results|response size|is limited to|too many|10,?000/i;
/** Answered ranges in a row before the range doubles again. */
export const GROW_AFTER = 4;

/** The error viem throws for a provider's eth_getLogs refusal of a range or result size. */
export function isLogRangeError(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; status?: unknown; details?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.status === 'number' && e.status === 413) return true;
    if (typeof e.code === 'number' && RANGE_CODES.has(e.code)) return true;
    const text = `${typeof e.details === 'string' ? e.details : ''} ${typeof e.message === 'string' ? e.message : ''}`;
    if (RANGE_TEXT.test(text) && /getLogs|log|range|results/i.test(text)) return true;
  }
  return false;
}

export class LogRange {
  private size: number;
  private answered = 0;

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`log range: max must be a whole number >= 1, got ${max}`);
    this.size = max;
  }

  /** Blocks the next eth_getLogs asks for. */
  get blocks(): number {
    return this.size;
  }

  /** A range was refused as too large: halve. False when it is already one block (nothing left to try). */
  refused(): boolean {
    this.answered = 0;
    if (this.size === 1) return false;
    this.size = Math.max(1, Math.floor(this.size / 2));
    return true;
  }

  /** A range was answered: after GROW_AFTER in a row, double (at most max). */
  ok(): void {
    if (this.size >= this.max) return;
    if (++this.answered >= GROW_AFTER) {
      this.answered = 0;
      this.size = Math.min(this.max, this.size * 2);
    }
  }
}
