// Which connections receive an RFQ (docs/trading.md, "The bus"): each subscribed connection is filed under every
// (asset, duration) pair of its filters, so an RFQ reaches its audience by looking up its legs' pairs,
// not by testing every connection. Pure; the stream (rfq-stream.ts) owns one per process.

export interface RfqFilters {
  assets: readonly string[];
  durations: readonly number[];
}

const keyOf = (asset: string, duration: number) => `${asset}\u0000${duration}`;

export class SubscriptionIndex<C> {
  private readonly byPair = new Map<string, Set<C>>();
  private readonly filters = new Map<C, RfqFilters>();

  /** Files `c` under its new filters (a later subscribe replaces the earlier one). */
  set(c: C, f: RfqFilters): void {
    this.remove(c);
    this.filters.set(c, { assets: [...f.assets], durations: [...f.durations] });
    for (const a of f.assets) {
      for (const d of f.durations) {
        const key = keyOf(a, d);
        let set = this.byPair.get(key);
        if (!set) this.byPair.set(key, (set = new Set()));
        set.add(c);
      }
    }
  }

  remove(c: C): void {
    const f = this.filters.get(c);
    if (!f) return;
    this.filters.delete(c);
    for (const a of f.assets) {
      for (const d of f.durations) {
        const key = keyOf(a, d);
        const set = this.byPair.get(key);
        set?.delete(c);
        if (set?.size === 0) this.byPair.delete(key);
      }
    }
  }

  filtersOf(c: C): RfqFilters | undefined {
    return this.filters.get(c);
  }

  get size(): number {
    return this.filters.size;
  }

  /** Connections whose filters match at least one leg (its asset and its duration). */
  forLegs(legs: ReadonlyArray<{ asset: string; duration_secs: number }>): Set<C> {
    return this.union(legs.map((l) => keyOf(l.asset, l.duration_secs)));
  }

  private union(keys: string[]): Set<C> {
    const out = new Set<C>();
    for (const k of new Set(keys)) for (const c of this.byPair.get(k) ?? []) out.add(c);
    return out;
  }
}

/**
 * The effective filters of a subscribe: the deployment's assets and durations (in its order), narrowed to
 * those the market maker named; an omitted list means all of them.
 */
export function effectiveFilters(
  requested: { assets?: readonly string[] | undefined; durations?: readonly number[] | undefined },
  offered: RfqFilters,
): RfqFilters {
  const assets = requested.assets ? offered.assets.filter((a) => requested.assets!.includes(a)) : [...offered.assets];
  const durations = requested.durations ? offered.durations.filter((d) => requested.durations!.includes(d)) : [...offered.durations];
  return { assets, durations };
}
