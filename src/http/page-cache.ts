// A per-process cache of the public part of the contest reads (lobby, contest detail, leaderboard, top
// participants, popular entry): key = operation + path parameters + normalized query, value = what the
// handler computed from the database (the anonymous wire body and whatever the caller fields need).
//   - A page lives at most `ttlMs` from the moment its load started, and never past the `expiresAtMs` its
//     loader gives (a clock boundary: popular-entry picks revealed when betting closes, a contest entering
//     or leaving the top-participants window).
//   - `contests.changed` (src/bus/contest-events.ts, published after each write's commit) drops the pages
//     of that contest plus the cross-contest ones (lobby, top participants); null drops every page. The
//     bus delivers to this process's subscribers synchronously in publish(), before the write answers, so a
//     process serves its own writes at once; another process within its message's delivery, or the TTL
//     when the message is lost.
//   - A load that started before an invalidation is neither stored nor shared with requests that arrive
//     after it (generation counter), so a read that raced a write cannot put the pre-write page back.
//   - Concurrent misses of one key share one load; at most `maxPages` pages are kept (oldest dropped first).
// Errors (404, 400) are never cached.

export const CROSS_CONTEST = '*';

export interface Loaded<T> {
  value: T;
  /** Epoch ms from which the value may be wrong whatever the writes (a clock boundary); none when absent. */
  expiresAtMs?: number | undefined;
}

interface Page {
  value: unknown;
  expiresAtMs: number;
  /** The contest id the page belongs to, or CROSS_CONTEST for pages spanning contests. */
  scope: string;
}

export interface PageCacheOptions {
  ttlMs: number;
  maxPages?: number;
  now?: () => number;
}

export class PageCache {
  private readonly pages = new Map<string, Page>();
  private readonly loading = new Map<string, { generation: number; promise: Promise<unknown> }>();
  private generation = 0;
  private readonly ttlMs: number;
  private readonly maxPages: number;
  private readonly now: () => number;

  constructor(opts: PageCacheOptions) {
    this.ttlMs = opts.ttlMs;
    this.maxPages = opts.maxPages ?? 2000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.pages.size;
  }

  /** The cached value of `key` if fresh, else `load(nowMs)`'s (stored unless an invalidation came meanwhile). */
  read<T>(key: string, scope: string, load: (nowMs: number) => Promise<Loaded<T>>): Promise<T> {
    const now = this.now();
    const page = this.pages.get(key);
    if (page && now < page.expiresAtMs) return Promise.resolve(page.value as T);
    const pending = this.loading.get(key);
    if (pending && pending.generation === this.generation) return pending.promise as Promise<T>;
    if (this.ttlMs <= 0) return load(now).then((l) => l.value);
    const generation = this.generation;
    const promise = load(now).then(
      (l) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        const expiresAtMs = Math.min(now + this.ttlMs, l.expiresAtMs ?? Infinity);
        if (generation === this.generation && this.now() < expiresAtMs) this.store(key, { value: l.value, expiresAtMs, scope });
        return l.value;
      },
      (err: unknown) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, { generation, promise });
    return promise;
  }

  /** Drops the pages of `contestId` and the cross-contest pages; every page when null. */
  invalidate(contestId: string | null): void {
    this.generation++;
    if (contestId === null) {
      this.pages.clear();
    } else {
      for (const [key, page] of this.pages) if (page.scope === contestId || page.scope === CROSS_CONTEST) this.pages.delete(key);
    }
    this.loading.clear();
  }

  private store(key: string, page: Page): void {
    this.pages.delete(key);
    if (this.pages.size >= this.maxPages) {
      const oldest = this.pages.keys().next();
      if (!oldest.done) this.pages.delete(oldest.value);
    }
    this.pages.set(key, page);
  }
}
