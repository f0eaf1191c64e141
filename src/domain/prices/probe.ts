// The price sources' probes (docs/prices.md, "Blocks and bans"): one cheap documented request per source and
// offered asset (Binance exchangeInfo, Coinbase's product, OKX's instrument, Pyth's latest update, the
// Chainlink feed's contract and latest round), at start-up and every PRICE_PROBE_EVERY_MS (the
// `probe-price-sources` job), never on every window. A source is `ok` only after one answered; `blocked`
// (451/403/401) keeps a source out of the windows' reads until a probe clears it; a probe held back by an
// open circuit records nothing (the circuit is the state). The listing check: every offered asset must be
// listed by at least PRICE_QUORUM configured sources, as each source's own listing says when it answered
// (a source that did not answer is taken at its configuration's word).
import type { Em } from '../../db/orm.js';
import type { PriceFeed } from './feed.js';
import { detailOf, reasonOf, type AbstainReason } from '../../adapters/prices/reasons.js';
import { repos } from '../../db/repos.js';

export interface ProbeOutcome {
  source: string;
  /** null: its circuit held the probe back (no request left; nothing is recorded). */
  state: 'ok' | 'failing' | 'blocked' | null;
  reason: AbstainReason | null;
  detail: string | null;
  listed: string[];
  unlisted: string[];
}

async function probeOne(feed: PriceFeed, assets: readonly string[]): Promise<ProbeOutcome> {
  const base = { source: feed.source, listed: [] as string[], unlisted: [] as string[] };
  if (!feed.probe) return { ...base, state: 'ok', reason: null, detail: null, listed: [...assets] };
  try {
    const p = await feed.probe(assets);
    const none = assets.length > 0 && p.listed.length === 0;
    return {
      source: feed.source,
      state: none ? 'failing' : 'ok',
      reason: none ? 'not_listed' : null,
      detail: none ? `lists none of ${assets.join(', ')}` : null,
      listed: p.listed,
      unlisted: p.unlisted,
    };
  } catch (err) {
    const reason = reasonOf(err);
    const state = reason === 'blocked' ? 'blocked' : reason === 'rate_limited' || reason === 'banned' ? null : 'failing';
    return { ...base, state, reason, detail: detailOf(err) };
  }
}

/** Every source probed at once. */
export function probeSources(feeds: readonly PriceFeed[], assets: readonly string[]): Promise<ProbeOutcome[]> {
  return Promise.all(feeds.map((f) => probeOne(f, assets)));
}

/** Records the probes that ran (not those an open circuit held back). */
export function recordProbes(em: Em, outcomes: readonly ProbeOutcome[], atMs: number): Promise<void> {
  const ran = outcomes.filter((o): o is ProbeOutcome & { state: 'ok' | 'failing' | 'blocked' } => o.state !== null);
  return repos(em).priceSources.recordProbes(
    ran.map((o) => ({
      source: o.source,
      state: o.state,
      reason: o.reason,
      detail: o.detail,
      atMs,
      listed: o.listed,
      unlisted: o.unlisted,
    })),
  );
}

/**
 * The offered assets fewer than `quorum` sources list, each named with the sources: a source counts for an
 * asset when the deployment configured it for the asset and, if its probe answered, its listing has it.
 */
export function listingProblems(
  feeds: readonly PriceFeed[],
  outcomes: readonly ProbeOutcome[],
  assets: readonly string[],
  quorum: number,
): string[] {
  const problems: string[] = [];
  for (const asset of assets) {
    const by: string[] = [];
    const not: string[] = [];
    for (const feed of feeds) {
      const o = outcomes.find((x) => x.source === feed.source);
      const configured = feed.covers ? feed.covers(asset) : true;
      // It answered (ok, or `failing` because it lists none of them) and its listing lacks the asset.
      const answered = o?.state === 'ok' || o?.reason === 'not_listed';
      const answeredNo = answered && !o!.listed.includes(asset);
      if (configured && !answeredNo) by.push(o?.state === 'ok' ? feed.source : `${feed.source} (not checked: ${o?.reason ?? 'no answer'})`);
      else not.push(`${feed.source} (${configured ? 'does not list it' : 'not configured for it'})`);
    }
    if (by.length < quorum) {
      problems.push(
        `MARKET_ASSETS: ${asset} is listed by ${by.length} of the price sources (${[...by, ...not].join(', ')}), fewer than PRICE_QUORUM (${quorum}); remove it from MARKET_ASSETS or configure more sources for it`,
      );
    }
  }
  return problems;
}
