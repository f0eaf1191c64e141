// The chain's figures as the workers' reconcile-chain job last read them (src/domain/settlement/onchain/observe-chain.ts),
// one row per chain; and the database's side of the chain status (parked sweeps, withdrawals waiting by reason).
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export class ChainObservationsRepository {
  constructor(private readonly db: Db) {}

  /** Replaces the chain's row. */
  async store(chainId: number, figures: object): Promise<void> {
    const json = JSON.stringify(figures);
    await sql`insert into chain_observations (chain_id, observed_at, figures) values (${chainId}, now(), ${json}::jsonb)
              on conflict (chain_id) do update set observed_at = excluded.observed_at, figures = excluded.figures`.execute(this.db);
  }

  /** The newest row (any chain: a deployment settles on one). */
  async latest(): Promise<{ chain_id: number; observed_at_ms: number; figures: unknown } | undefined> {
    const { rows } = await sql<{ chain_id: number; observed_at_ms: string; figures: unknown }>`
      select chain_id, (extract(epoch from observed_at) * 1000)::int8::text as observed_at_ms, figures
        from chain_observations order by observed_at desc limit 1`.execute(this.db);
    const r = rows[0];
    return r && { chain_id: r.chain_id, observed_at_ms: Number(r.observed_at_ms), figures: r.figures };
  }

  /** Deposit addresses whose sweeps are parked. */
  async parkedSweeps(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from deposit_addresses where parked_reason is not null`.execute(
      this.db,
    );
    return rows[0]?.n ?? 0;
  }

  /** Pending withdrawals by pending_reason (null: on their way, not waiting on anything named). */
  async withdrawalsWaiting(): Promise<Array<{ reason: string | null; count: number }>> {
    const { rows } = await sql<{ reason: string | null; count: number }>`
      select pending_reason as reason, count(*)::int as count from operations
       where kind = 'withdraw' and status = 'pending' group by pending_reason order by pending_reason nulls first`.execute(this.db);
    return rows;
  }
}
