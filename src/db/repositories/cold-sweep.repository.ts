// The cold wallet's SQL (src/domain/settlement/onchain/cold-sweep.ts; docs/operations.md, "Custody"): the open
// sweep (at most one per chain: cold_sweeps_one_open_key), its row lock, its outcome, and what the settlement
// wallet still owes on chain (pending withdrawals not paid yet, and who waits for funds). A sweep's transaction
// is a chain_transactions row with purpose 'cold_sweep' (src/db/repositories/chain-tx.repository.ts).
import { sql } from 'kysely';
import { int8, int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';

export type ColdSweepStatus = 'open' | 'done' | 'reverted' | 'cancelled';

export interface ColdSweepRow {
  id: string;
  to_address: string;
  amount: bigint;
  status: ColdSweepStatus;
  wait_reason: string | null;
}

export class ColdSweepRepository {
  constructor(private readonly db: Db) {}

  /** The chain's open sweep, if any. */
  async openSweep(chainId: number): Promise<ColdSweepRow | undefined> {
    const r = await this.db
      .selectFrom('cold_sweeps')
      .select(['id', 'to_address', 'amount', 'status', 'wait_reason'])
      .where('chain_id', '=', chainId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return r && { ...r, amount: int8ToBigint(r.amount) };
  }

  /** Opens a sweep of `amount`; false when one is open already (another worker moved first). */
  async insert(s: { id: string; chainId: number; to: string; amount: bigint }): Promise<boolean> {
    const r = await this.db
      .insertInto('cold_sweeps')
      .values({ id: s.id, chain_id: s.chainId, to_address: s.to, amount: int8(s.amount), status: 'open' })
      .onConflict((oc) => oc.column('chain_id').where('status', '=', 'open').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** The sweep's status under its row lock. */
  async lock(id: string): Promise<ColdSweepStatus | undefined> {
    return (await this.db.selectFrom('cold_sweeps').select('status').where('id', '=', id).forUpdate().executeTakeFirst())?.status;
  }

  /** Closes an open sweep; false when it was not open. */
  async finish(id: string, status: Exclude<ColdSweepStatus, 'open'>, f: { txHash?: string; reason?: string }): Promise<boolean> {
    const r = await this.db
      .updateTable('cold_sweeps')
      .set({ status, tx_hash: f.txHash ?? null, reason: f.reason ?? null, wait_reason: null, finished_at: sql<string>`now()` })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async setWaitReason(id: string, reason: string | null): Promise<void> {
    await this.db.updateTable('cold_sweeps').set({ wait_reason: reason }).where('id', '=', id).execute();
  }

  /**
   * What the settlement wallet still owes on chain: USDC micros of pending withdrawals whose transfer has no
   * successful receipt yet (held for review or not, signed or not), and how many of them wait for funds.
   */
  async owedWithdrawals(): Promise<{ micros: bigint; waitingForFunds: number }> {
    const { rows } = await sql<{ micros: string; waiting: number }>`
      select coalesce(sum(o.amount), 0)::text as micros,
             (count(*) filter (where o.pending_reason = 'hot_wallet_funds'))::int as waiting
        from operations o
       where o.kind = 'withdraw' and o.status = 'pending'
         and not exists (select 1 from chain_transactions t where t.operation_id = o.id and t.receipt_status = 'success')`.execute(this.db);
    return { micros: int8ToBigint(rows[0]!.micros), waitingForFunds: rows[0]!.waiting };
  }
}
