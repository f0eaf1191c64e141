// RFQ market windows: one markets row per (asset, duration_secs, start_at_ms).
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToNumber } from '../int8.js';

export interface WindowKeyParams {
  asset: string;
  durationSecs: number;
  startAtMs: number;
}

export class MarketsRepository {
  constructor(private readonly db: Db) {}

  /** Inserts the windows that do not exist yet; returns the ids this call created. */
  insertWindows(keys: readonly WindowKeyParams[]) {
    return (
      this.db
        .insertInto('markets')
        .values(
          keys.map((k) => ({ kind: 'rfq_window' as const, asset: k.asset, duration_secs: k.durationSecs, start_at_ms: int8(k.startAtMs) })),
        )
        // The index predicate must be a literal for PostgreSQL to infer markets_rfq_window_key as the arbiter.
        .onConflict((oc) => oc.columns(['asset', 'duration_secs', 'start_at_ms']).where('kind', '=', sql.lit('rfq_window')).doNothing())
        .returning('market_id')
        .execute()
    );
  }

  /** The window's row; its market id and start as numbers (both far below 2^53). */
  async findWindow(key: WindowKeyParams) {
    const row = await this.db
      .selectFrom('markets')
      .select(['market_id', 'asset', 'duration_secs', 'start_at_ms'])
      .where('kind', '=', 'rfq_window')
      .where('asset', '=', key.asset)
      .where('duration_secs', '=', key.durationSecs)
      .where('start_at_ms', '=', int8(key.startAtMs))
      .$narrowType<{ asset: string; duration_secs: number; start_at_ms: string }>()
      .executeTakeFirst();
    return row && { ...row, market_id: int8ToNumber(row.market_id), start_at_ms: int8ToNumber(row.start_at_ms) };
  }
}
