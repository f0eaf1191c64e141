// The read-only statements of the ledger check (checkLedger, src/domain/ledger/ledger.ts; `npm run
// ledger:check`) and of the onchain reconciliation (src/domain/settlement/onchain/reconcile.ts). Amounts
// and ids leave the database as text (`::text`) and are printed as they are: the check reports, it does
// not compute with them. `npm run ledger:check` runs them through a Kysely over its own connection
// (singleConnectionDb below), the service through the request's transaction.
import { Kysely, PostgresDialect, sql, type PostgresPool } from 'kysely';
import type { DB, Db } from '../schema.js';
import { int8ToBigint } from '../int8.js';

export class LedgerCheckRepository {
  constructor(private readonly db: Db) {}

  /** How many rows the ledger has (the line `npm run ledger:check` prints). */
  async counts(): Promise<{ transactions: number; entries: number; accounts: number }> {
    const { rows } = await sql<{ transactions: number; entries: number; accounts: number }>`
      select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from ledger_entries)::int as entries,
             (select count(*) from ledger_accounts)::int as accounts`.execute(this.db);
    return rows[0]!;
  }

  /** Transactions with fewer than two entries, or whose entries do not sum to zero. */
  async unbalancedTransactions(): Promise<Array<{ id: string; total: string | null; entries: number }>> {
    const { rows } = await sql<{ id: string; total: string | null; n: string }>`
      select t.id, sum(e.amount)::text as total, count(e.id)::text as n
        from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
       group by t.id having count(e.id) < 2 or sum(e.amount) <> 0`.execute(this.db);
    return rows.map((r) => ({ id: r.id, total: r.total, entries: Number(r.n) }));
  }

  /** Accounts whose cached balance differs from the sum of their entries. */
  async balanceMismatches(): Promise<Array<{ id: string; balance: string; total: string }>> {
    const { rows } = await sql<{ id: string; balance: string; total: string }>`
      select a.id::text as id, a.balance::text as balance, coalesce(sum(e.amount), 0)::text as total
        from ledger_accounts a left join ledger_entries e on e.account_id = a.id
       group by a.id having a.balance <> coalesce(sum(e.amount), 0)`.execute(this.db);
    return rows;
  }

  async negativeUserBalances(): Promise<Array<{ id: string; balance: string }>> {
    const { rows } = await sql<{ id: string; balance: string }>`
      select id::text as id, balance::text as balance from ledger_accounts where user_id is not null and balance < 0`.execute(this.db);
    return rows;
  }

  /**
   * Users whose user_reserved balance is not what is still at stake (docs/trading.md, "The ledger"): pending
   * withdrawals (amount and fee), bets on open contests, open RFQ stakes, open positions' stakes (taker) and liabilities
   * (maker). One statement, so one snapshot: each of these moves together with the ledger in one transaction.
   */
  async reservedMismatches(): Promise<Array<{ user_id: string; balance: string; expected: string }>> {
    const { rows } = await sql<{ user_id: string; balance: string; expected: string }>`
      with expected as (
        select user_id, sum(amount) as amount from (
          select user_id, amount + fee_micros as amount from operations where kind = 'withdraw' and status = 'pending'
          union all select e.user_id, c.bet_amount from contest_entries e join contests c on c.id = e.contest_id where c.status = 'open'
          union all select taker_user_id, stake from rfqs where status = 'open'
          union all select taker_user_id, stake from positions where status = 'open'
          union all select f.maker_user_id, f.liability from position_fills f join positions p on p.id = f.position_id where p.status = 'open'
        ) x group by user_id
      ), held as (select user_id, balance from ledger_accounts where kind = 'user_reserved')
      select coalesce(h.user_id, e.user_id)::text as user_id, coalesce(h.balance, 0)::text as balance, coalesce(e.amount, 0)::text as expected
        from held h full join expected e on e.user_id = h.user_id
       where coalesce(h.balance, 0) <> coalesce(e.amount, 0)`.execute(this.db);
    return rows;
  }

  /**
   * Owners whose trading counters (trading_stats, kept in the fill and settlement transactions) differ from
   * the sums over positions (takers) and position fills (makers) (docs/trading.md, "PnL"); both sides as
   * space-separated text. `owners`: the owner keys' prefixes (src/domain/trading-counters.ts builds the keys).
   */
  async statsMismatches(owners: { taker: string; maker: string }): Promise<Array<{ owner: string; kept: string; summed: string }>> {
    const { rows } = await sql<{ owner: string; kept: string; summed: string }>`
      with summed as (
        select ${owners.taker}::text || taker_user_id as owner, count(*) filter (where status = 'open') as open_count,
               coalesce(sum(stake) filter (where status = 'open'), 0) as open_stake, coalesce(sum(payout) filter (where status = 'open'), 0) as potential,
               count(*) filter (where status <> 'open') as settled, count(*) filter (where status = 'won') as wins,
               count(*) filter (where status = 'lost') as losses, count(*) filter (where status = 'voided') as voided, coalesce(sum(pnl), 0) as pnl
          from positions group by taker_user_id
        union all
        select ${owners.maker}::text || f.maker_address, count(*) filter (where p.status = 'open'), coalesce(sum(f.liability) filter (where p.status = 'open'), 0),
               coalesce(sum(f.payout) filter (where p.status = 'open'), 0), count(*) filter (where p.status <> 'open'),
               count(*) filter (where p.status = 'lost'), count(*) filter (where p.status = 'won'), count(*) filter (where p.status = 'voided'),
               coalesce(sum(f.maker_pnl), 0)
          from position_fills f join positions p on p.id = f.position_id group by f.maker_address
      ), kept as (
        select owner, open_count, open_stake, potential_payout as potential, settled_count as settled, wins, losses, voided, realized_pnl as pnl from trading_stats
      )
      select coalesce(k.owner, s.owner) as owner,
             concat_ws(' ', k.open_count, k.open_stake, k.potential, k.settled, k.wins, k.losses, k.voided, k.pnl) as kept,
             concat_ws(' ', s.open_count, s.open_stake, s.potential, s.settled, s.wins, s.losses, s.voided, s.pnl) as summed
        from kept k full join summed s on s.owner = k.owner
       where (k.open_count, k.open_stake, k.potential, k.settled, k.wins, k.losses, k.voided, k.pnl)
             is distinct from (s.open_count, s.open_stake, s.potential, s.settled, s.wins, s.losses, s.voided, s.pnl)`.execute(this.db);
    return rows;
  }

  /**
   * What the books owe and hold for the reconciliation, in micros: -balance(settlement_clearing), the users'
   * available and reserved sums, and pending withdrawals that already signed a chain transaction.
   */
  async books(): Promise<{ liabilities: bigint; available: bigint; reserved: bigint; pots: bigint; inFlight: bigint }> {
    const { rows } = await sql<{ liabilities: string | null; available: string; reserved: string; pots: string; in_flight: string }>`
      select (select -balance from ledger_accounts where kind = 'settlement_clearing')::text as liabilities,
             (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'user_available')::text as available,
             (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'user_reserved')::text as reserved,
             (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'contest_pot')::text as pots,
             (select coalesce(sum(o.amount), 0) from operations o
               where o.kind = 'withdraw' and o.status = 'pending'
                 and exists (select 1 from chain_transactions c where c.operation_id = o.id))::text as in_flight`.execute(this.db);
    const b = rows[0];
    return {
      liabilities: int8ToBigint(b?.liabilities ?? '0'),
      available: int8ToBigint(b?.available ?? '0'),
      reserved: int8ToBigint(b?.reserved ?? '0'),
      pots: int8ToBigint(b?.pots ?? '0'),
      inFlight: int8ToBigint(b?.in_flight ?? '0'),
    };
  }

  /**
   * Every registered custodial deposit address with what its credits and finished sweeps say it should hold
   * (credited - swept, micros; a sweep moves the whole balance, so this can go below zero), in index order.
   */
  async depositAddressBooks(): Promise<Array<{ address: string; expected: bigint }>> {
    const { rows } = await sql<{ address: string; expected: string }>`
      select a.address,
             (coalesce((select sum(d.amount) from chain_deposits d where d.to_address = a.address), 0)
              - coalesce((select sum(s.amount) from deposit_sweeps s where s.address = a.address and s.status = 'done'), 0))::text as expected
        from deposit_addresses a order by a.deposit_index`.execute(this.db);
    return rows.map((r) => ({ address: r.address, expected: int8ToBigint(r.expected) }));
  }
}

export const ledgerCheckRepository = (db: Db) => new LedgerCheckRepository(db);

/** Anything that runs one statement: a pg Client or Pool, PGlite. */
export interface SqlRunner {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * A Kysely over one connection the caller owns (a plain pg client, the embedded PGlite) for a script or
 * test that reads outside the service's ORM, e.g. `npm run ledger:check`. Closing it leaves the connection open.
 */
export function singleConnectionDb(runner: SqlRunner): Db {
  const client = { query: (text: string, params: unknown[]) => runner.query(text, params), release() {} };
  const pool = { connect: async () => client, end: async () => undefined } as unknown as PostgresPool;
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
