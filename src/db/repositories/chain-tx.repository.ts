// The SQL of the chain-transaction module (src/domain/settlement/onchain/chain-tx/): attempts stored before
// they are broadcast (for every purpose: operation, sweep, filler, cold sweep), the sender's open nonces and
// their gas, the unproven marks, the node's last refusal, and the outcome recorded once per nonce.
import { sql } from 'kysely';
import { int8, int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export type TxPurpose = 'operation' | 'sweep' | 'filler' | 'cold_sweep';

/** Which row owns an attempt: exactly one of the ids, as its purpose says (chain_transactions_owner_check). */
export type TxOwnerColumns =
  | { purpose: 'operation'; operationId: string }
  | { purpose: 'sweep'; sweepId: string }
  | { purpose: 'filler' | 'cold_sweep'; intentId: string };

export interface AttemptRow {
  hash: string;
  from_address: string;
  nonce: bigint;
  attempt: number;
  raw: string;
  max_fee_per_gas: bigint;
  max_priority_fee_per_gas: bigint;
  gas_limit: bigint;
  receipt_status: string | null;
  created_at_ms: number;
  unproven_since_ms: number | null;
}

const COLUMNS = [
  'hash',
  'from_address',
  'nonce',
  'attempt',
  'raw',
  'max_fee_per_gas',
  'max_priority_fee_per_gas',
  'gas_limit',
  'receipt_status',
  'created_at',
  'unproven_since',
] as const;

type Raw = {
  [K in (typeof COLUMNS)[number]]: K extends 'attempt'
    ? number
    : K extends 'receipt_status' | 'unproven_since'
      ? string | Date | null
      : string | Date;
};

export function toAttempt(r: Raw): AttemptRow {
  return {
    hash: String(r.hash),
    from_address: String(r.from_address),
    nonce: int8ToBigint(String(r.nonce)),
    attempt: r.attempt,
    raw: String(r.raw),
    max_fee_per_gas: int8ToBigint(String(r.max_fee_per_gas)),
    max_priority_fee_per_gas: int8ToBigint(String(r.max_priority_fee_per_gas)),
    gas_limit: int8ToBigint(String(r.gas_limit)),
    receipt_status: r.receipt_status === null ? null : String(r.receipt_status),
    created_at_ms: new Date(r.created_at).getTime(),
    unproven_since_ms: r.unproven_since === null ? null : new Date(r.unproven_since).getTime(),
  };
}

export class ChainTxRepository {
  constructor(private readonly db: Db) {}

  /** Every attempt of an owner (of `from`, when given), first first. */
  async attempts(owner: TxOwnerColumns, from?: string): Promise<AttemptRow[]> {
    let q = this.db.selectFrom('chain_transactions').select(COLUMNS);
    if (owner.purpose === 'operation') q = q.where('operation_id', '=', owner.operationId);
    else if (owner.purpose === 'sweep') q = q.where('sweep_id', '=', owner.sweepId);
    else q = q.where('intent_id', '=', owner.intentId);
    if (from !== undefined) q = q.where('from_address', '=', from);
    return (await q.orderBy('attempt').execute()).map((r) => toAttempt(r as Raw));
  }

  async insertAttempt(a: {
    hash: string;
    chainId: number;
    owner: TxOwnerColumns;
    from: string;
    nonce: bigint;
    attempt: number;
    raw: string;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
    gasLimit: bigint;
  }): Promise<void> {
    const o = a.owner;
    await this.db
      .insertInto('chain_transactions')
      .values({
        hash: a.hash,
        chain_id: a.chainId,
        purpose: o.purpose,
        operation_id: o.purpose === 'operation' ? o.operationId : null,
        sweep_id: o.purpose === 'sweep' ? o.sweepId : null,
        intent_id: o.purpose === 'filler' || o.purpose === 'cold_sweep' ? o.intentId : null,
        from_address: a.from,
        nonce: int8(a.nonce),
        attempt: a.attempt,
        raw: a.raw,
        max_fee_per_gas: int8(a.maxFeePerGas),
        max_priority_fee_per_gas: int8(a.maxPriorityFeePerGas),
        gas_limit: int8(a.gasLimit),
      })
      .execute();
  }

  /** The sender's next nonce under its row lock, created at `nodeNonce` the first time. */
  async allocateNonce(chainId: number, address: string, nodeNonce: bigint): Promise<bigint> {
    const { rows } = await sql<{ nonce: string }>`
      insert into chain_nonces (chain_id, address, next_nonce) values (${chainId}, ${address}, ${int8(nodeNonce)} + 1)
      on conflict (chain_id, address) do update set next_nonce = chain_nonces.next_nonce + 1
      returning (next_nonce - 1)::text as nonce`.execute(this.db);
    return int8ToBigint(rows[0]!.nonce);
  }

  /**
   * The lowest nonce at or above `atLeast` (the node's count: lower ones are used) among the sender's stored
   * attempts whose nonce has no recorded outcome; null when none.
   */
  async lowestOpenNonce(chainId: number, from: string, atLeast: bigint): Promise<bigint | null> {
    const { rows } = await sql<{ n: string | null }>`
      select min(t.nonce)::text as n from chain_transactions t
       where t.chain_id = ${chainId} and t.from_address = ${from} and t.receipt_status is null and t.nonce >= ${int8(atLeast)}
         and not exists (select 1 from chain_transactions d where d.chain_id = t.chain_id and d.from_address = t.from_address
                          and d.nonce = t.nonce and d.receipt_status is not null)`.execute(this.db);
    return rows[0]?.n == null ? null : int8ToBigint(rows[0].n);
  }

  /**
   * The first nonce in [from, below) for which the sender has no stored transaction at all (recorded or not): a nonce
   * gap, behind which nothing stored can be mined; null when every nonce of the range is stored.
   */
  async firstUnstoredNonce(chainId: number, sender: string, from: bigint, below: bigint): Promise<bigint | null> {
    if (below <= from) return null;
    const { rows } = await sql<{ n: string | null }>`
      select min(g.n)::text as n from generate_series(${int8(from)}::int8, ${int8(below)}::int8 - 1) g(n)
       where not exists (select 1 from chain_transactions t where t.chain_id = ${chainId} and t.from_address = ${sender} and t.nonce = g.n)`.execute(
      this.db,
    );
    return rows[0]?.n == null ? null : int8ToBigint(rows[0].n);
  }

  /** Nonces of the sender's gap fillers that no recorded transaction holds yet (mined or not): the fill steps them to their record. */
  async unrecordedFillerNonces(chainId: number, sender: string): Promise<bigint[]> {
    const { rows } = await sql<{ n: string }>`
      select distinct t.nonce::text as n from chain_transactions t
       where t.chain_id = ${chainId} and t.from_address = ${sender} and t.purpose = 'filler'
         and not exists (select 1 from chain_transactions d where d.chain_id = t.chain_id and d.from_address = t.from_address
                          and d.nonce = t.nonce and d.receipt_status is not null)`.execute(this.db);
    return rows.map((r) => int8ToBigint(r.n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Locks the sender's nonce row (serialises gap fillers with every signature of that sender). */
  async lockNonceRow(chainId: number, sender: string): Promise<void> {
    await sql`select 1 from chain_nonces where chain_id = ${chainId} and address = ${sender} for update`.execute(this.db);
  }

  /** Stored attempts of the sender at this nonce (any owner). */
  async atNonce(chainId: number, sender: string, nonce: bigint): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from chain_transactions where chain_id = ${chainId} and from_address = ${sender} and nonce = ${int8(nonce)}`.execute(
      this.db,
    );
    return rows[0]!.n;
  }

  /** The most the sender's open nonces at or above `atLeast` can still cost, wei: per nonce its dearest attempt's gas * maxFee. */
  async openCostWei(chainId: number, from: string, atLeast: bigint): Promise<bigint> {
    const { rows } = await sql<{ wei: string }>`
      select coalesce(sum(c), 0)::text as wei from (
        select max(gas_limit::numeric * max_fee_per_gas::numeric) as c from chain_transactions
         where chain_id = ${chainId} and from_address = ${from} and receipt_status is null and nonce >= ${int8(atLeast)}
         group by nonce) n`.execute(this.db);
    return BigInt(rows[0]!.wei);
  }

  /**
   * USDC micros leaving the settlement wallet with a signed transaction and no outcome yet: pending withdrawals
   * (other than `except`) and the open cold sweep (src/domain/settlement/onchain/cold-sweep.ts).
   */
  async withdrawalsInFlight(except: string | null): Promise<bigint> {
    const { rows } = await sql<{ micros: string }>`
      select (coalesce((select sum(o.amount) from operations o
       where o.kind = 'withdraw' and o.status = 'pending' and o.id is distinct from ${except}::uuid
         and exists (select 1 from chain_transactions t where t.operation_id = o.id)
         and not exists (select 1 from chain_transactions t where t.operation_id = o.id and t.receipt_status is not null)), 0)
        + coalesce((select sum(c.amount) from cold_sweeps c where c.status = 'open'
         and exists (select 1 from chain_transactions t where t.intent_id = c.id)
         and not exists (select 1 from chain_transactions t where t.intent_id = c.id and t.receipt_status is not null)), 0))::text as micros`.execute(
      this.db,
    );
    return int8ToBigint(rows[0]!.micros);
  }

  /** Marks these attempts unproven (nonce used, no receipt) from now unless they are; answers the earliest mark. */
  async markUnproven(hashes: readonly string[]): Promise<number> {
    const { rows } = await sql<{ since: string | Date }>`
      with u as (update chain_transactions set unproven_since = coalesce(unproven_since, now())
                  where hash = ${anyOf(hashes, 'text')} returning unproven_since)
      select min(unproven_since) as since from u`.execute(this.db);
    return new Date(rows[0]!.since).getTime();
  }

  async clearUnproven(hashes: readonly string[]): Promise<void> {
    await this.db
      .updateTable('chain_transactions')
      .set({ unproven_since: null })
      .where('hash', '=', anyOf(hashes, 'text'))
      .where('unproven_since', 'is not', null)
      .execute();
  }

  async setBroadcastError(hash: string, refusal: 'nonce_too_low' | 'underpriced' | 'insufficient_funds' | 'other' | null): Promise<void> {
    await this.db.updateTable('chain_transactions').set({ broadcast_error: refusal }).where('hash', '=', hash).execute();
  }

  /** The outcome of an attempt with its confirmations, unless another attempt at its nonce already has one; true when this call recorded it. */
  async recordOutcome(hash: string, status: 'success' | 'reverted', blockNumber: bigint): Promise<boolean> {
    const r = await sql`
      update chain_transactions t set receipt_status = ${status}, block_number = ${int8(blockNumber)}
       where t.hash = ${hash}
         and not exists (select 1 from chain_transactions d where d.chain_id = t.chain_id and d.from_address = t.from_address
                          and d.nonce = t.nonce and d.receipt_status is not null)`.execute(this.db);
    return (r.numAffectedRows ?? 0n) > 0n;
  }
}

export const chainTxRepository = (db: Db) => new ChainTxRepository(db);
