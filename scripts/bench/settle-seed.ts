// bench:settle and bench:portfolio: the seed, plain SQL on a migrated database. Ended RFQ windows, each with
// `positions` open single-leg positions (half up, half down) made as the fill would have made them: a
// filled RFQ, its filled quote, the position, its one leg and one fill from a maker (liability = payout -
// stake). Money and counters are consistent, so checkLedger is empty before and after settling: ONE
// balanced seeding ledger transaction moves the open stakes into the takers' user_reserved and the open
// liabilities into the makers' user_reserved (from settlement_clearing), and trading_stats holds each
// owner's open counters.
import pg from 'pg';

export interface SettleSeedPlan {
  /** Open positions per window. */
  positions: number;
  /** Windows, each seeded identically (same takers, makers, stakes, odds, directions). */
  windows: number;
  makers: number;
  takers: number;
  now: number;
  /** Takers get positions round-robin; `takerWeights` (optional) instead gives taker k exactly that many per window. */
  takerWeights?: readonly number[];
  /**
   * Windows ended an hour ago (default: ready to resolve), or starting in an hour (`future`: a running
   * service's resolve-window relay leaves them alone, so the positions stay open while a read bench runs).
   */
  windowsAt?: 'ended' | 'future';
  /** Existing users (e.g. signed in through the service) to use as the takers, instead of seeding `takers` new ones. */
  takerIds?: readonly string[];
}

export interface SettleSeed {
  /** market_id of each window, in seeding order. */
  windowIds: number[];
  takerIds: string[];
  makerIds: string[];
  seconds: number;
}

const WINDOW_MS = 300_000;

/** Seeds per `p` on `sql` (a migrated, empty database). */
export async function seedSettlement(sql: pg.ClientBase, p: SettleSeedPlan, log: (msg: string) => void): Promise<SettleSeed> {
  const t0 = performance.now();
  const step = async (label: string, text: string, params: unknown[] = []) => {
    const t = performance.now();
    const r = await sql.query(text, params);
    log(`  seed: ${label.padEnd(40)} ${String(r.rowCount ?? '').padStart(8)} rows  ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return r;
  };
  await sql.query('set synchronous_commit = off');
  // Seeded users' wallets: 0x00..0<n> for takers, 0x00..1<n> (hex 10000000 + n) for makers.
  const insertUsers = async (label: string, count: number, base: number) =>
    (
      await step(
        label,
        `insert into users (id, wallet_address)
         select gen_random_uuid(), '0x' || lpad(to_hex($2::int + n), 40, '0') from generate_series(1, $1::int) n
         returning id, ('x' || right(wallet_address, 8))::bit(32)::int as n`,
        [count, base],
      )
    ).rows
      .sort((a: { n: number }, b: { n: number }) => a.n - b.n)
      .map((r: { id: string }) => r.id);
  const takerIds = p.takerIds ? [...p.takerIds] : await insertUsers('users (takers)', p.takers, 0);
  const makerIds = await insertUsers('users (makers)', p.makers, 0x10000000);
  await step(
    'ledger accounts (available, reserved)',
    `insert into ledger_accounts (user_id, kind) select id, k from unnest($1::uuid[]) id cross join unnest(array['user_available', 'user_reserved']) k
     on conflict (user_id, kind) where user_id is not null do nothing`,
    [[...takerIds, ...makerIds]],
  );
  // BTC 5-minute windows, one after the other, that ended an hour ago (or start in an hour).
  const firstStart =
    p.windowsAt === 'future'
      ? Math.ceil((p.now + 3_600_000) / WINDOW_MS) * WINDOW_MS
      : Math.floor((p.now - 3_600_000) / WINDOW_MS) * WINDOW_MS - p.windows * WINDOW_MS;
  const windowIds = (
    await step(
      `markets (${p.windows} ${p.windowsAt ?? 'ended'} windows)`,
      `insert into markets (kind, asset, duration_secs, start_at_ms)
       select 'rfq_window', 'BTC', 300, $1::bigint + (w - 1)::bigint * ${WINDOW_MS} from generate_series(1, $2::int) w
       returning market_id`,
      [firstStart, p.windows],
    )
  ).rows.map((r: { market_id: string }) => Number(r.market_id));

  // Position n of every window: taker (round-robin or weighted), maker n % makers, direction by parity,
  // stake 1..1.96 USDC, odds 1.2x..2.7x; payout floored like the fill.
  // (no weights: unnest(null) has no rows, so the round-robin fallback applies)
  const takerOf = `coalesce((select t from (select t, sum(w) over (order by t) as upto from unnest($5::int[]) with ordinality as x(w, t)) c
                             where c.upto >= n order by t limit 1)::int - 1, (n - 1) % $3::int)`;
  await step(
    'seed_positions (temp)',
    `create temp table seed_positions as
     select w.market_id, w.k as window_index, n, gen_random_uuid() as id, gen_random_uuid() as rfq_id, gen_random_uuid() as quote_id,
            gen_random_uuid() as fill_id, ${takerOf} as taker_index, (n - 1) % $4::int as maker_index,
            case when n % 2 = 0 then 'up' else 'down' end as direction,
            (1000000 + (n % 97) * 10000)::bigint as stake, 12000 + (n % 61) * 250 as odds_bps,
            $1::bigint - 7200000 + n::bigint * 10 as created_at_ms
       from unnest($6::bigint[]) with ordinality as w(market_id, k) cross join generate_series(1, $2::int) n`,
    [p.now, p.positions, p.takers, p.makers, p.takerWeights ?? null, windowIds],
  );
  await sql.query('alter table seed_positions add column payout bigint');
  await sql.query('update seed_positions set payout = stake * odds_bps / 10000');
  await sql.query(
    `create temp table seed_takers as select (k - 1)::int as idx, id, lower(u.wallet_address) as address
       from unnest($1::uuid[]) with ordinality as t(id, k) join users u using (id)`,
    [takerIds],
  );
  await sql.query(
    `create temp table seed_makers as select (k - 1)::int as idx, id, lower(u.wallet_address) as address
       from unnest($1::uuid[]) with ordinality as t(id, k) join users u using (id)`,
    [makerIds],
  );
  const joined = `from seed_positions s join seed_takers t on t.idx = s.taker_index join seed_makers m on m.idx = s.maker_index`;
  await step(
    'rfqs (filled)',
    `insert into rfqs (id, taker_user_id, taker_address, nonce, order_hash, signature, legs, stake, min_odds_bps, order_type, fill_mode,
       status, deadline_ms, quote_deadline_ms, expires_at_ms, due_at_ms, created_at_ms, closed_at_ms, filled_stake, payout, odds_bps, position_id)
     select s.rfq_id, t.id, t.address, s.window_index * 10000000 + s.n, '0x' || encode(sha256(s.rfq_id::text::bytea), 'hex'),
            '0x' || repeat('ab', 65), jsonb_build_array(jsonb_build_object('market_id', s.market_id, 'direction', s.direction)),
            s.stake, 10001, 'FOK', 'best', 'filled', s.created_at_ms + 30000, s.created_at_ms + 500, s.created_at_ms + 30000,
            s.created_at_ms + 500, s.created_at_ms, s.created_at_ms + 500, s.stake, s.payout, s.odds_bps, s.id
     ${joined}`,
  );
  await step(
    'rfq_quotes (filled)',
    `insert into rfq_quotes (id, rfq_id, maker_address, maker_user_id, odds_bps, max_fill, valid_until_ms, signature, status, filled_stake, received_at_ms)
     select s.quote_id, s.rfq_id, m.address, m.id, s.odds_bps, s.stake, s.created_at_ms + 10000, '0x' || repeat('cd', 65), 'filled', s.stake,
            s.created_at_ms + 100
     ${joined}`,
  );
  await step(
    'positions (open)',
    `insert into positions (id, rfq_id, taker_user_id, taker_address, stake, payout, odds_bps, status, created_at_ms)
     select s.id, s.rfq_id, t.id, t.address, s.stake, s.payout, s.odds_bps, 'open', s.created_at_ms ${joined}`,
  );
  await step(
    'position_legs (pending)',
    `insert into position_legs (position_id, leg_index, market_id, direction) select id, 0, market_id, direction from seed_positions`,
  );
  await step(
    'position_fills (one maker each)',
    `insert into position_fills (id, position_id, quote_id, maker_address, maker_user_id, stake, odds_bps, payout, liability, created_at_ms)
     select s.fill_id, s.id, s.quote_id, m.address, m.id, s.stake, s.odds_bps, s.payout, s.payout - s.stake, s.created_at_ms + 500 ${joined}`,
  );
  // One balanced transaction: what is at stake leaves settlement_clearing for the owners' user_reserved.
  await sql.query('begin');
  await sql.query(
    `insert into ledger_transactions (id, kind, reference) values (gen_random_uuid(), 'bench_seed', 'bench:settle') returning id`,
  );
  await step(
    'ledger entries (one seeding transaction)',
    `with tx as (select id from ledger_transactions where kind = 'bench_seed'),
          held as (
            select t.id as user_id, sum(s.stake) as amount from seed_positions s join seed_takers t on t.idx = s.taker_index group by t.id
            union all
            select m.id, sum(s.payout - s.stake) from seed_positions s join seed_makers m on m.idx = s.maker_index group by m.id),
          lines as (
            select a.id as account_id, h.amount from held h join ledger_accounts a on a.user_id = h.user_id and a.kind = 'user_reserved' where h.amount <> 0
            union all
            select a.id, -(select sum(amount) from held) from ledger_accounts a where a.kind = 'settlement_clearing')
     insert into ledger_entries (transaction_id, account_id, amount) select (select id from tx), account_id, amount from lines order by account_id`,
  );
  await sql.query('commit');
  await step(
    'trading_stats (open counters)',
    `insert into trading_stats (owner, open_count, open_stake, potential_payout)
     select 'user:' || t.id, count(*), sum(s.stake), sum(s.payout) from seed_positions s join seed_takers t on t.idx = s.taker_index group by t.id
     union all
     select 'mm:' || m.address, count(*), sum(s.payout - s.stake), sum(s.payout) from seed_positions s join seed_makers m on m.idx = s.maker_index group by m.address`,
  );
  await sql.query('drop table seed_positions, seed_takers, seed_makers');
  await step('vacuum analyze', 'vacuum (analyze)');
  return { windowIds, takerIds, makerIds, seconds: (performance.now() - t0) / 1000 };
}
