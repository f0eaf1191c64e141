// Market-maker protection, MMP (docs/market-makers.md "MMP"), as derivatives venues offer it: a maker sets
// limits per interval on its fills (count) and on the liability they add; when a fill reaches one, the
// protection trips in the fill's transaction: every live quote of the maker is withdrawn (quote_result
// cancelled, reason mmp_triggered), `mmp_status` tells its connections, and its quotes are refused
// (`mmp_triggered`) until it sends `mmp_reset`.
import type { Em } from '../../db/orm.js';
import { type MmProtectionRow } from '../../db/repositories/mm-protections.repository.js';
import type { RfqEvent } from './events.js';
import type { MmpStatusFrame } from './records.js';
import { withdrawAllQuotes } from './withdraw.js';
import { repos } from '../../db/repos.js';

export function mmpStatusFrame(r: MmProtectionRow | undefined): MmpStatusFrame {
  return {
    type: 'mmp_status',
    enabled: r !== undefined,
    interval_ms: r ? r.interval_ms : null,
    max_fills: r?.max_fills ?? null,
    max_liability_micros: r?.max_liability == null ? null : r.max_liability.toString(),
    window_fills: r?.window_fills ?? 0,
    window_liability_micros: r ? r.window_liability.toString() : '0',
    tripped_at_ms: r?.tripped_at_ms ?? null,
  };
}

export interface MmpLimits {
  intervalMs: number;
  maxFills: number | null;
  maxLiabilityMicros: bigint | null;
}

export async function setProtection(em: Em, makerWallet: string, l: MmpLimits, nowMs = Date.now()): Promise<MmpStatusFrame> {
  const row = await repos(em).mmProtections.set(makerWallet.toLowerCase(), {
    intervalMs: l.intervalMs,
    maxFills: l.maxFills,
    maxLiability: l.maxLiabilityMicros,
    nowMs,
  });
  return mmpStatusFrame(row);
}

export async function resetProtection(em: Em, makerWallet: string, nowMs = Date.now()): Promise<MmpStatusFrame> {
  return mmpStatusFrame(await repos(em).mmProtections.reset(makerWallet.toLowerCase(), nowMs));
}

export async function protectionOf(em: Em, makerWallet: string): Promise<MmpStatusFrame> {
  return mmpStatusFrame(await repos(em).mmProtections.get(makerWallet.toLowerCase()));
}

/**
 * In the fill's transaction, after its write statement counted the fills (FillsRepository.closeWrites): each
 * maker whose protection it tripped has every live quote withdrawn. Returns the events to publish after commit.
 */
export async function mmpTripped(tx: Em, tripped: readonly MmProtectionRow[]): Promise<RfqEvent[]> {
  const events: RfqEvent[] = [];
  for (const row of tripped) {
    const withdrawn = await withdrawAllQuotes(tx, row.maker_address, 'mmp_triggered');
    events.push(...withdrawn.events, { topic: 'mm.event', wallet: row.maker_address, frame: mmpStatusFrame(row) });
  }
  return events;
}
