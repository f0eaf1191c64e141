// bench:settle's floor: settling a window with the same postings as settleWindow, hand-written in plain SQL
// with pg. One transaction per batch of `batchSize` positions, three statements: lock the batch (FOR UPDATE in
// id order), set the legs' outcomes, then one statement that evaluates the positions (parlay rule), posts ONE
// ledger transaction with the entries netted per account (accounts locked in id order), records the
// positions' status / PnL / resolved_at / settle_tx_id and the fills' maker PnL, and moves the trading
// counters. Nothing comes back to JavaScript but the ids and the count.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ResolutionOutcome } from '../../src/db/vocabulary.js';

// The same lock statement as PositionsRepository.lockBatch (pending legs from their partial index).
const LOCK = `with pending as materialized (
    select l.position_id from position_legs l where l.market_id = $1::int8 and l.outcome = 'pending')
  select p.id from positions p where p.id in (select position_id from pending order by position_id limit $2)
  order by p.id for update of p`;

const LEGS = `update position_legs set outcome = case
    when $2::text = 'VOID' then 'voided' when (direction = 'up') = ($2::text = 'YES') then 'won' else 'lost' end
  where market_id = $1::int8 and outcome = 'pending' and position_id = any($3::uuid[])`;

const SETTLE = `
with st as (
  select p.id, p.taker_user_id, p.stake, p.payout,
         case when bool_or(l.outcome = 'lost') then 'lost' when bool_or(l.outcome = 'pending') then 'open'
              when bool_or(l.outcome = 'voided') then 'voided' else 'won' end as final
    from positions p join position_legs l on l.position_id = p.id
   where p.id = any($1::uuid[]) and p.status = 'open'
   group by p.id),
s as (
  select id, taker_user_id, stake, payout, final,
         case final when 'won' then payout - stake when 'lost' then -stake else 0 end as pnl
    from st where final <> 'open'),
f as (
  select pf.id, pf.maker_user_id, pf.maker_address, pf.stake, pf.payout, pf.liability, s.final,
         case s.final when 'won' then -pf.liability when 'lost' then pf.stake else 0 end as pnl
    from position_fills pf join s on s.id = pf.position_id),
moves (user_id, kind, amount) as (
  select taker_user_id, 'user_reserved', -stake from s
  union all select taker_user_id, 'user_available', case final when 'won' then payout when 'voided' then stake else 0 end from s
  union all select maker_user_id, 'user_reserved', -liability from f
  union all select maker_user_id, 'user_available', case final when 'lost' then stake + liability when 'voided' then liability else 0 end from f),
net as (
  select a.id as account_id, sum(m.amount) as amount
    from moves m join ledger_accounts a on a.user_id = m.user_id and a.kind = m.kind
   group by a.id having sum(m.amount) <> 0),
locked as (select a.id from ledger_accounts a where a.id in (select account_id from net) order by a.id for update),
tx as (
  insert into ledger_transactions (id, kind, reference)
  select $2::uuid, 'position_settle', 'window:' || $3::text where exists (select 1 from net) returning id),
ent as (
  insert into ledger_entries (transaction_id, account_id, amount)
  select tx.id, n.account_id, n.amount from tx cross join net n join locked k on k.id = n.account_id order by n.account_id),
up as (
  update positions p set status = s.final, pnl = s.pnl, resolved_at_ms = $4::int8, settle_tx_id = $2::uuid
    from s where p.id = s.id and p.status = 'open'),
fu as (update position_fills pf set maker_pnl = f.pnl from f where pf.id = f.id),
deltas as (
  select 'user:' || taker_user_id as owner, count(*)::int as n, sum(stake) as stake, sum(payout) as potential,
         count(*) filter (where final = 'won')::int as wins, count(*) filter (where final = 'lost')::int as losses,
         count(*) filter (where final = 'voided')::int as voided, sum(pnl) as pnl
    from s group by taker_user_id
  union all
  select 'mm:' || maker_address, count(*)::int, sum(liability), sum(payout),
         count(*) filter (where final = 'lost')::int, count(*) filter (where final = 'won')::int,
         count(*) filter (where final = 'voided')::int, sum(pnl)
    from f group by maker_address),
stats as (
  update trading_stats t set open_count = t.open_count - d.n, open_stake = t.open_stake - d.stake,
         potential_payout = t.potential_payout - d.potential, settled_count = t.settled_count + d.n,
         wins = t.wins + d.wins, losses = t.losses + d.losses, voided = t.voided + d.voided, realized_pnl = t.realized_pnl + d.pnl
    from deltas d where t.owner = d.owner)
select count(*)::int as settled from s`;

export interface PlainSettleResult {
  settled: number;
  batches: number;
  /** Wall time of each batch's transaction, ms. */
  batchMs: number[];
}

/** Records the resolution (first writer wins), then settles the window batch by batch on `client`. */
export async function settleWindowPlainSql(
  client: pg.ClientBase,
  marketId: number,
  outcome: ResolutionOutcome,
  nowMs: number,
  batchSize = 1000,
): Promise<PlainSettleResult> {
  await client.query(
    `insert into window_resolutions (market_id, outcome, open_price_micros, close_price_micros, source, resolved_by, resolved_at_ms)
     values ($1, $2, null, null, 'bench', 'operator', $3) on conflict (market_id) do nothing`,
    [marketId, outcome, nowMs],
  );
  const out: PlainSettleResult = { settled: 0, batches: 0, batchMs: [] };
  for (;;) {
    const t = performance.now();
    await client.query('begin');
    try {
      const ids = (await client.query<{ id: string }>(LOCK, [marketId, batchSize])).rows.map((r) => r.id);
      if (!ids.length) {
        await client.query('commit');
        return out;
      }
      await client.query(LEGS, [marketId, outcome, ids]);
      const r = await client.query<{ settled: number }>(SETTLE, [ids, randomUUID(), String(marketId), nowMs]);
      await client.query('commit');
      out.settled += r.rows[0]!.settled;
      out.batches += 1;
      out.batchMs.push(performance.now() - t);
    } catch (err) {
      await client.query('rollback');
      throw err;
    }
  }
}
