// bench:contests: the seed (plain SQL after the service migrated the database): users, contests with 2 markets
// each over categories, statuses and a year of created_at_ms, and one resolved lineups contest with every entry.
import pg from 'pg';

const DAY = 86_400_000;

export interface SeedPlan {
  now: number;
  bigId: string;
  users: number;
  contests: number;
  /** Entries per user in the big contest. */
  perUser: number;
  /** Picks per entry in the big contest: scores 0..bigMarkets. */
  bigMarkets: number;
  callerUserId: string;
  /** The signed-in caller's entries, as won-market bit masks. */
  callerMasks: number[];
}

/** Seeds per `p` on `sql`; the time it took and the row counts. */
export async function seedContests(sql: pg.ClientBase, p: SeedPlan, log: (msg: string) => void) {
  const { now, bigId, users: USERS, contests: CONTESTS, perUser: PER_USER, bigMarkets: BIG_MARKETS, callerMasks: CALLER_MASKS } = p;
  const ENTRIES = PER_USER * USERS;
  const openNewest = Math.min(3000, CONTESTS); // the newest ~10 days are open, older ones resolved (5% voided)
  const seedStart = performance.now();
  const step = async (label: string, text: string, params: unknown[] = []) => {
    const t = performance.now();
    const r = await sql.query(text, params);
    log(`  seed: ${label.padEnd(44)} ${String(r.rowCount ?? '').padStart(8)} rows  ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  log(`seeding ${USERS} users, ${CONTESTS} contests, 1 contest with ${ENTRIES} entries x ${BIG_MARKETS} picks ...`);
  await sql.query('set synchronous_commit = off');
  await step(
    'users',
    `insert into users (id, wallet_address, handle, x_handle, x_avatar_url)
   select gen_random_uuid(), '0x' || lpad(to_hex(n), 40, '0'),
          case when n % 4 <> 0 then 'bench_' || n end,
          case when n % 5 = 0 then 'xbench' || n end,
          case when n % 5 = 0 then 'https://pbs.twimg.com/profile_images/' || n || '/avatar_normal.jpg' end
     from generate_series(1, $1::int) n`,
    [USERS],
  );
  await step(
    'seed_contests (temp)',
    `create temp table seed_contests as
   select n, gen_random_uuid() as id,
          (array['mentions', 'sports', 'culture'])[1 + n % 3] as category,
          (array['lineups', 'outcast', 'survivor', 'streak'])[1 + (n / 3) % 4] as game_type,
          case when n % 20 = 0 then 'voided' when n <= $2::int then 'open' else 'resolved' end as status,
          $1::bigint - n::bigint * 300000 - floor(random() * 300000)::bigint as created_at_ms
     from generate_series(1, $3::int) n`,
    [now, openNewest, CONTESTS],
  );
  await step(
    'contests',
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
     max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
     bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms, resolved_at_ms, voided_at_ms)
   select id, 'Bench contest #' || n, category, game_type, case when n % 2 = 0 then 'Seeded by bench:contests' end, status,
          5000000, case when n % 4 = 0 then 10000000 else 0 end, 100, 1, 0,
          case when status = 'open' then 2 else 0 end,
          null,
          case when status = 'open' then $1::bigint + $2::bigint else created_at_ms + $2::bigint end,
          case when status = 'open' then $1::bigint + 2 * $2::bigint else created_at_ms + 2 * $2::bigint end,
          'num_bets', 2, '{6000,3000,1000}', null, 'visible', created_at_ms,
          case when status = 'resolved' then least(created_at_ms + 4 * $2::bigint, $1::bigint - 1000) end,
          case when status = 'voided' then least(created_at_ms + $2::bigint, $1::bigint - 1000) end
     from seed_contests`,
    [now, DAY],
  );
  await step(
    'markets + contest_markets (2 per contest)',
    `with m as (insert into markets (kind) select 'contest' from generate_series(1, $1::int * 2) returning market_id),
        r as (select market_id, (row_number() over (order by market_id) - 1)::int as k from m)
   insert into contest_markets (market_id, contest_id, position, category, name, status, outcome, betting_closes_at_ms,
     live_ends_at_ms, resolution_time_ms, resolved_at_ms)
   select r.market_id, c.id, r.k % 2, c.category, 'Bench market ' || (r.k % 2 + 1) || ' of contest #' || c.n,
          case c.status when 'open' then 'OPEN' when 'resolved' then 'RESOLVED' else 'VOIDED' end,
          case when c.status = 'resolved' then (case when (r.k + c.n) % 3 = 0 then 'NO' else 'YES' end) end,
          c.created_at_ms + $2::bigint, c.created_at_ms + 2 * $2::bigint, c.created_at_ms + 2 * $2::bigint,
          case when c.status <> 'open' then least(c.created_at_ms + $2::bigint, $3::bigint - 2000) end
     from r join seed_contests c on c.n = r.k / 2 + 1`,
    [CONTESTS, DAY, now],
  );
  await step(
    'big contest',
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
     max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
     bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms, resolved_at_ms)
   values ($1, 'Bench: the big one', 'sports', 'lineups', 'One contest with every entry', 'resolved', 5000000, 100000000,
     $2::int, $3::int, 0, 0, null, $4::bigint - 2 * $5::bigint, $4::bigint - $5::bigint / 12, 'num_bets', $6::int,
     '{5000,2500,1000,500,500,500}', null, 'visible', $4::bigint - 3 * $5::bigint, $4::bigint - 3600000)`,
    [bigId, ENTRIES + 1000, PER_USER, now, DAY, BIG_MARKETS],
  );
  await step(
    `big contest markets (${BIG_MARKETS}, resolved)`,
    `with m as (insert into markets (kind) select 'contest' from generate_series(1, $2::int) returning market_id),
        r as (select market_id, (row_number() over (order by market_id) - 1)::int as k from m)
   insert into contest_markets (market_id, contest_id, position, category, name, status, outcome, resolved_at_ms)
   select market_id, $1, k, 'sports', 'Big contest market ' || (k + 1), 'RESOLVED', case when k % 2 = 0 then 'YES' else 'NO' end,
          $3::bigint - 7200000
     from r`,
    [bigId, BIG_MARKETS, now],
  );
  // mask bit k = 1: the entry won market k (its pick matches the outcome); score = popcount(mask).
  await step(
    'seed_entries (temp)',
    `create temp table seed_entries as
   select gen_random_uuid() as id, u.id as user_id, k as entry_index, floor(random() * 1024)::int as mask,
          $1::bigint + floor(random() * $2::bigint)::bigint as created_at_ms
     from users u cross join generate_series(0, $3::int - 1) k
    where u.id <> $4::uuid`,
    [now - 3 * DAY, 2 * DAY, PER_USER, p.callerUserId],
  );
  await step(
    'caller entries (temp)',
    `insert into seed_entries (id, user_id, entry_index, mask, created_at_ms)
   select gen_random_uuid(), $1::uuid, i - 1, m, $2::bigint + i from unnest($3::int[]) with ordinality as t(m, i)`,
    [p.callerUserId, now - 2 * DAY, CALLER_MASKS],
  );
  await step(
    'contest_entries (ranked, paid)',
    `insert into contest_entries (id, contest_id, user_id, entry_index, created_at_ms, pick_count, resolved_win_count,
     resolved_leg_count, score, payout, rank)
   select id, $1, user_id, entry_index, created_at_ms, $2::int, s, $2::int, s,
          case when s = $2::int then 40000000 when s = $2::int - 1 then 2000000 else 0 end,
          rank() over (order by s desc)
     from (select *, length(replace(mask::bit(10)::text, '0', ''))::int as s from seed_entries) e`,
    [bigId, BIG_MARKETS],
  );
  await step(
    'contest_entry_picks',
    `insert into contest_entry_picks (entry_id, market_id, direction)
   select e.id, m.market_id, case when ((e.mask >> m.position) & 1 = 1) = (m.outcome = 'YES') then 'up' else 'down' end
     from seed_entries e cross join contest_markets m where m.contest_id = $1`,
    [bigId],
  );
  await step(
    'contest_markets up/down counts',
    `update contest_markets cm set up_count = p.up, down_count = p.down
     from (select p.market_id, count(*) filter (where direction = 'up')::int as up, count(*) filter (where direction = 'down')::int as down
             from contest_entry_picks p join contest_markets m on m.market_id = p.market_id and m.contest_id = $1 group by p.market_id) p
    where cm.market_id = p.market_id`,
    [bigId],
  );
  await step(
    'contest_score_counts',
    `insert into contest_score_counts (contest_id, score, entries)
   select contest_id, score, count(*)::int from contest_entries where contest_id = $1 group by contest_id, score`,
    [bigId],
  );
  await step(
    'entries_filled',
    'update contests set entries_filled = (select count(*) from contest_entries where contest_id = $1) where id = $1',
    [bigId],
  );
  await sql.query('drop table seed_contests; drop table seed_entries');
  await step('vacuum analyze', 'vacuum (analyze)');
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const counts = (
    await sql.query(
      `select (select count(*) from users)::int as users, (select count(*) from contests)::int as contests,
     (select count(*) from contest_markets)::int as contest_markets, (select count(*) from contest_entries)::int as contest_entries,
     (select count(*) from contest_entry_picks)::int as picks,
     (select string_agg(score || ':' || entries, ' ' order by score desc) from contest_score_counts where contest_id = $1) as histogram,
     (select count(*) from contests where status = 'open' and category = 'sports')::int as open_sports`,
      [bigId],
    )
  ).rows[0];
  log(`seeded in ${seedSeconds.toFixed(1)} s: ${JSON.stringify(counts)}`);
  return { seedSeconds, counts };
}
