// Re-checks a window's resolution (docs/prices.md, "Checking a resolution"; `npm run prices:verify`): every
// observation recorded with the window is fetched again from its source by its own identifier (`ref`) and
// compared with what was stored (price, observation time, confidence), then the votes and the quorum are
// recomputed from the fetched observations and compared with the recorded decision. A source that cannot
// be asked now (down, blocked, not configured here) is "not re-checked": neither agreement nor difference.
import type { Em } from '../../db/orm.js';
import { getWindowState, type ObservationRecord, type SourceReadingRecord, type WindowState } from './window-resolution.js';
import type { PriceFeed, PriceObservation } from '../prices/feed.js';
import { decide, type SourceReading } from '../prices/quorum.js';
import { detailOf } from '../../adapters/prices/reasons.js';

export interface SideCheck {
  side: 'open' | 'close';
  ref: string | null;
  stored: ObservationRecord;
  /** The observation fetched now; null when the source has no such observation any more. */
  fetched: PriceObservation | null;
  /** Why it could not be fetched (the source did not answer). */
  error?: string;
  /** true/false once fetched; null when it could not be. */
  agrees: boolean | null;
}

export interface SourceCheck {
  source: string;
  vote: string;
  reason: string | null;
  sides: SideCheck[];
}

export interface WindowVerification {
  window: WindowState;
  sources: SourceCheck[];
  /** The recorded decision and the one recomputed from the fetched observations (null when nothing was recorded). */
  recorded: string | null;
  recomputed: string | null;
  /** `agrees`, `differs`, or `unchecked` (some observation could not be fetched, no difference found). */
  verdict: 'agrees' | 'differs' | 'unchecked';
}

const same = (a: ObservationRecord, b: PriceObservation) =>
  a.priceMicros === b.priceMicros && a.observedAtMs === b.observedAtMs && (a.confidenceMicros ?? null) === (b.confidenceMicros ?? null);

async function checkSide(
  feed: PriceFeed | undefined,
  asset: string,
  side: 'open' | 'close',
  stored: ObservationRecord,
): Promise<SideCheck> {
  const base = { side, ref: stored.ref, stored };
  if (!feed?.lookup || !stored.ref)
    return { ...base, fetched: null, error: feed ? 'no identifier to look up' : 'source not configured here', agrees: null };
  try {
    const fetched = await feed.lookup(asset, stored.ref);
    return { ...base, fetched, agrees: fetched !== null && same(stored, fetched) };
  } catch (err) {
    return { ...base, fetched: null, error: detailOf(err), agrees: null };
  }
}

const decisionOf = (w: WindowState): string | null =>
  !w.check
    ? null
    : w.check.state === 'disputed'
      ? `DISPUTED (${w.check.reason})`
      : w.priceSource === 'operator'
        ? null
        : (w.outcome ?? 'VOID');

export async function verifyWindow(em: Em, feeds: readonly PriceFeed[], marketId: number): Promise<WindowVerification> {
  const w = await getWindowState(em, marketId, 0);
  const sources: SourceCheck[] = [];
  const readings: SourceReading[] = [];
  for (const r of w.sources) {
    const feed = feeds.find((f) => f.source === r.source);
    const sides: SideCheck[] = [];
    for (const [name, stored] of [
      ['open', r.open],
      ['close', r.close],
    ] as const) {
      if (stored) sides.push(await checkSide(feed, w.asset, name, stored));
    }
    sources.push({ source: r.source, vote: r.verdict, reason: r.reason, sides });
    readings.push(rereading(r, sides));
  }
  const recorded = decisionOf(w);
  let recomputed: string | null = null;
  if (w.check && recorded !== null) {
    const d = decide({ sources: w.check.sources, quorum: w.check.quorum, maxAgeMs: w.check.maxAgeMs }, readings, w.startAtMs, w.endAtMs);
    recomputed = d.kind === 'agreed' ? d.outcome : `DISPUTED (${d.reason})`;
  }
  const sideChecks = sources.flatMap((s) => s.sides);
  const differs = sideChecks.some((s) => s.agrees === false) || (recorded !== null && recomputed !== recorded);
  const verdict = differs ? 'differs' : sideChecks.some((s) => s.agrees === null) ? 'unchecked' : 'agrees';
  return { window: w, sources, recorded, recomputed, verdict };
}

/** The reading as the source gives it now: its fetched observations (a side not fetched keeps the stored one). */
function rereading(r: SourceReadingRecord, sides: SideCheck[]): SourceReading {
  const now = (name: 'open' | 'close'): PriceObservation | null => {
    const s = sides.find((x) => x.side === name);
    if (!s) return null;
    if (s.agrees === null)
      return { priceMicros: s.stored.priceMicros, observedAtMs: s.stored.observedAtMs, sourceRef: s.stored.ref ?? undefined };
    return s.fetched;
  };
  return { source: r.source, open: now('open'), close: now('close'), ...(r.reason ? { reason: r.reason as SourceReading['reason'] } : {}) };
}

const micros = (v: bigint) => {
  const s = v.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
};
const obs = (o: { priceMicros: bigint; observedAtMs: number }) => `${micros(o.priceMicros)} at ${o.observedAtMs}`;

/** The verification as the lines prices:verify prints. */
export function formatVerification(v: WindowVerification): string[] {
  const w = v.window;
  const lines = [
    `market ${w.marketId} ${w.asset} ${w.durationSecs}s ${w.startAtMs}..${w.endAtMs}: ${w.status}${w.outcome ? ` ${w.outcome}` : ''}${w.priceSource ? ` (${w.priceSource})` : ''}`,
  ];
  if (!w.check) return [...lines, '  no price check recorded: nothing to re-check', `  => ${v.verdict}`];
  for (const s of v.sources) {
    if (!s.sides.length) lines.push(`  ${s.source}: ${s.vote}${s.reason ? ` (${s.reason})` : ''}, no observation recorded`);
    for (const x of s.sides) {
      const head = `  ${s.source} ${x.side} ${x.ref ?? '(no ref)'}: stored ${obs(x.stored)}`;
      if (x.agrees === true) lines.push(`${head}; agrees`);
      else if (x.agrees === false) lines.push(`${head}; DIFFERS: now ${x.fetched ? obs(x.fetched) : 'absent at the source'}`);
      else lines.push(`${head}; not re-checked (${x.error})`);
    }
  }
  lines.push(`  decision: recorded ${v.recorded ?? '(operator)'}, recomputed ${v.recomputed ?? '-'}`, `  => ${v.verdict}`);
  return lines;
}
