// Custodial deposits' SQL (src/domain/settlement/onchain/deposits.ts and sweeps.ts; docs/settlement-custodial.md):
// the registry of handed-out deposit addresses, the listener's cursor, the credits (one per Transfer log, by
// primary key), the sweeps and the addresses' retry and park state. A sweep's transactions are rows of
// chain_transactions with a sweep_id, read and written by src/db/repositories/chain-tx.repository.ts.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToBigintOrNull } from '../int8.js';

export interface DepositLog {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  from: string;
  to: string;
  amount: bigint;
  /** The credit's operation id (used only when this log was not credited before). */
  operationId: string;
}

export type SweepStatus = 'topup' | 'transfer' | 'done' | 'failed';

export interface ActiveSweep {
  id: string;
  address: string;
  deposit_index: bigint;
  status: SweepStatus;
  /** The transfer's USDC micros, once it is signed. */
  amount: bigint | null;
}

export class CustodialRepository {
  constructor(private readonly db: Db) {}

  /** Registers a user's deposit address the first time it is handed out; a second registration changes nothing. */
  async register(a: { address: string; userId: string; index: bigint; fromBlock: bigint }): Promise<void> {
    await this.db
      .insertInto('deposit_addresses')
      .values({ address: a.address, user_id: a.userId, deposit_index: int8(a.index), from_block: int8(a.fromBlock) })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async registered(userId: string): Promise<{ address: string; deposit_index: bigint } | undefined> {
    const row = await this.db
      .selectFrom('deposit_addresses')
      .select(['address', 'deposit_index'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && { address: row.address, deposit_index: int8ToBigint(row.deposit_index) };
  }

  /** Every registered address (the listener's eth_getLogs filter) with the lowest from_block (null: none registered). */
  async watched(): Promise<{ addresses: string[]; fromBlock: bigint | null }> {
    const rows = await this.db.selectFrom('deposit_addresses').select(['address', 'from_block']).orderBy('deposit_index').execute();
    const from = rows.reduce<bigint | null>((m, r) => {
      const b = int8ToBigint(r.from_block);
      return m === null || b < m ? b : m;
    }, null);
    return { addresses: rows.map((r) => r.address), fromBlock: from };
  }

  /** The registered address of the lowest index (the start-up check re-derives it). */
  async firstRegistered(): Promise<{ address: string; deposit_index: bigint } | undefined> {
    const row = await this.db
      .selectFrom('deposit_addresses')
      .select(['address', 'deposit_index'])
      .orderBy('deposit_index')
      .limit(1)
      .executeTakeFirst();
    return row && { address: row.address, deposit_index: int8ToBigint(row.deposit_index) };
  }

  async cursor(chainId: number, name: string, lock: boolean): Promise<{ block_number: bigint; block_hash: string } | undefined> {
    const q = this.db
      .selectFrom('chain_cursors')
      .select(['block_number', 'block_hash'])
      .where('chain_id', '=', chainId)
      .where('name', '=', name);
    const row = await (lock ? q.forUpdate() : q).executeTakeFirst();
    return row && { block_number: int8ToBigint(row.block_number), block_hash: row.block_hash };
  }

  async initCursor(chainId: number, name: string, blockNumber: bigint, blockHash: string): Promise<void> {
    await this.db
      .insertInto('chain_cursors')
      .values({ chain_id: chainId, name, block_number: int8(blockNumber), block_hash: blockHash })
      .onConflict((oc) => oc.columns(['chain_id', 'name']).doNothing())
      .execute();
  }

  async moveCursor(chainId: number, name: string, blockNumber: bigint, blockHash: string): Promise<void> {
    await this.db
      .updateTable('chain_cursors')
      .set({ block_number: int8(blockNumber), block_hash: blockHash, updated_at: sql<string>`now()` })
      .where('chain_id', '=', chainId)
      .where('name', '=', name)
      .execute();
  }

  /**
   * Credits the logs not credited before, in ONE statement: the chain_deposits rows (primary key chain, tx hash,
   * log index: a log seen again inserts nothing), their operations (deposit, success, with the tx hash), and
   * the addresses flagged for a sweep. Returns the new credits, to be posted to the ledger in the same transaction.
   */
  async credit(chainId: number, logs: readonly DepositLog[]): Promise<Array<{ operation_id: string; user_id: string; amount: bigint }>> {
    // Every column as text, cast in the statement (int8 ones exactly, as int8() binds them).
    const col = <K extends keyof DepositLog>(k: K) => logs.map((l) => String(l[k]));
    const { rows } = await sql<{ operation_id: string; user_id: string; amount: string }>`
      with d as (
        select * from unnest(${col('txHash')}::text[], ${col('logIndex')}::int[], ${col('blockNumber')}::int8[], ${col('blockHash')}::text[],
                             ${col('from')}::text[], ${col('to')}::text[], ${col('amount')}::int8[], ${col('operationId')}::uuid[])
                   as d(tx_hash, log_index, block_number, block_hash, from_address, to_address, amount, operation_id)),
      ins as (
        insert into chain_deposits (chain_id, tx_hash, log_index, block_number, block_hash, from_address, to_address, amount, operation_id)
        select ${chainId}, tx_hash, log_index, block_number, block_hash, from_address, to_address, amount, operation_id from d
        on conflict do nothing
        returning to_address, amount, tx_hash, operation_id),
      ops as (
        insert into operations (id, user_id, kind, status, amount, tx_hash, settled_at)
        select ins.operation_id, a.user_id, 'deposit', 'success', ins.amount, ins.tx_hash, now()
          from ins join deposit_addresses a on a.address = ins.to_address
        returning id, user_id, amount),
      counted as (
        update deposit_addresses a set credits = a.credits + n.n
          from (select to_address, count(*) as n from ins group by to_address) n where a.address = n.to_address)
      select id as operation_id, user_id, amount::text as amount from ops order by id`.execute(this.db);
    return rows.map((r) => ({ ...r, amount: int8ToBigint(r.amount) }));
  }

  /** Addresses with credits since their last sweep opened, no sweep under way, not parked, and past their retry time. */
  async sweepCandidates(chainId: number, limit: number): Promise<Array<{ address: string; deposit_index: bigint; credits: bigint }>> {
    const rows = await this.db
      .selectFrom('deposit_addresses as a')
      .select(['a.address', 'a.deposit_index', 'a.credits'])
      .where('a.credits', '>', sql<string>`a.sweep_mark`)
      .where('a.parked_reason', 'is', null)
      .where((eb) => eb.or([eb('a.sweep_retry_at', 'is', null), eb('a.sweep_retry_at', '<=', sql<string>`now()`)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('deposit_sweeps as s')
              .select('s.id')
              .whereRef('s.address', '=', 'a.address')
              .where('s.chain_id', '=', chainId)
              .where('s.status', 'in', ['topup', 'transfer']),
          ),
        ),
      )
      .orderBy('a.deposit_index')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ address: r.address, deposit_index: int8ToBigint(r.deposit_index), credits: int8ToBigint(r.credits) }));
  }

  /** Marks the credits seen (`credits` as read with the candidate): a credit after that read keeps the address due. */
  async markSwept(address: string, credits: bigint): Promise<void> {
    await this.db
      .updateTable('deposit_addresses')
      .set({ sweep_mark: int8(credits) })
      .where('address', '=', address)
      .where('sweep_mark', '<', int8(credits))
      .execute();
  }

  /**
   * A sweep of the address reverted: due again after `backoffMs * 2^(failures - 1)`, or parked with `reason` once it
   * failed `maxFailures` times in a row. Answers whether it is parked now.
   */
  async sweepFailed(address: string, reason: string, maxFailures: number, backoffMs: number): Promise<boolean> {
    const { rows } = await sql<{ parked: boolean }>`
      update deposit_addresses set sweep_failures = sweep_failures + 1, sweep_mark = 0,
             sweep_retry_at = now() + (${backoffMs} * power(2, sweep_failures) * interval '1 millisecond'),
             parked_reason = case when sweep_failures + 1 >= ${maxFailures} then ${reason} else parked_reason end,
             parked_at = case when sweep_failures + 1 >= ${maxFailures} then now() else parked_at end
       where address = ${address}
      returning parked_reason is not null as parked`.execute(this.db);
    return rows[0]?.parked ?? false;
  }

  /** Sweeps of the address stop (no top-up, no transfer) until unparked; the USDC stays counted where it is. */
  async park(address: string, reason: string): Promise<void> {
    await sql`update deposit_addresses set parked_reason = ${reason}, parked_at = now(), sweep_mark = 0
               where address = ${address} and parked_reason is null`.execute(this.db);
  }

  /** A sweep succeeded: the failure count starts over. */
  async sweepSucceeded(address: string): Promise<void> {
    await sql`update deposit_addresses set sweep_failures = 0, sweep_retry_at = null where address = ${address} and sweep_failures > 0`.execute(
      this.db,
    );
  }

  /** Parked deposit addresses, oldest first. */
  async parked(limit: number): Promise<Array<{ address: string; reason: string; parked_at_ms: number }>> {
    const rows = await this.db
      .selectFrom('deposit_addresses')
      .select(['address', 'parked_reason', 'parked_at'])
      .where('parked_reason', 'is not', null)
      .orderBy('parked_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ address: r.address, reason: r.parked_reason!, parked_at_ms: new Date(r.parked_at!).getTime() }));
  }

  /** A new sweep of the address unless one is under way (unique index deposit_sweeps_active_key); true when opened. */
  async openSweep(id: string, chainId: number, address: string): Promise<boolean> {
    const r = await this.db
      .insertInto('deposit_sweeps')
      .values({ id, chain_id: chainId, address, status: 'topup' })
      // The only possible conflict is the partial unique index deposit_sweeps_active_key (the id is new).
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    return r !== undefined;
  }

  async activeSweeps(chainId: number): Promise<ActiveSweep[]> {
    const rows = await this.db
      .selectFrom('deposit_sweeps as s')
      .innerJoin('deposit_addresses as a', 'a.address', 's.address')
      .select(['s.id', 's.address', 'a.deposit_index', 's.status', 's.amount'])
      .where('s.chain_id', '=', chainId)
      .where('s.status', 'in', ['topup', 'transfer'])
      .orderBy('s.created_at')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      address: r.address,
      deposit_index: int8ToBigint(r.deposit_index),
      status: r.status as SweepStatus,
      amount: int8ToBigintOrNull(r.amount),
    }));
  }

  /** The sweep's status under its row lock (held until the caller's transaction ends). */
  async lockSweep(id: string): Promise<SweepStatus | undefined> {
    return (await this.db.selectFrom('deposit_sweeps').select('status').where('id', '=', id).forUpdate().executeTakeFirst())?.status;
  }

  async setSweep(id: string, status: SweepStatus, amount?: bigint): Promise<void> {
    await this.db
      .updateTable('deposit_sweeps')
      .set({ status, updated_at: sql<string>`now()`, ...(amount === undefined ? {} : { amount: int8(amount) }) })
      .where('id', '=', id)
      .execute();
  }
}
