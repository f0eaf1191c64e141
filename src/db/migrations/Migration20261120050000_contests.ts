import { Migration } from '@mikro-orm/migrations';

// Contests (docs/getting-started.md, Contests): contests, their markets, entries and picks, pool images.
// The reads that must not grow with table size each have an index:
//   - lobby pages: keyset on (created_at_ms desc, id desc), one index per filter combination;
//   - leaderboard: entries ordered by (score desc, created_at_ms, id) within a contest; ranks come from
//     contest_score_counts (entries per score), so a rank is a sum over distinct scores, not a count of rows;
//   - popular entry and outcast minority: up/down counters on each contest market, kept in the entry's
//     transaction;
//   - caller.joined: (user_id, contest_id) on entries;
//   - top participants: resolved contests by (category, game_type, resolved_at_ms) and paid entries only.
// Counters are maintained in the same transaction as the rows they count, under the contest's row lock,
// and CHECK constraints keep them in range (entries_filled <= entry_cap).
export class Migration20261120050000_contests extends Migration {
  override name = 'Migration20261120050000_contests';

  override up(): void {
    this.addSql(`
      create table pool_images (
        id uuid primary key,
        content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/webp')),
        bytes bytea not null check (octet_length(bytes) between 1 and 2097152),
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        created_at timestamptz not null default now()
      );
    `);
    // Keys the service signs opaque values with (lobby cursors), one random key per database, so every
    // process of a deployment accepts the cursors of the others and nobody else can forge one.
    this.addSql(`
      create table service_keys (
        name text primary key,
        key bytea not null check (octet_length(key) >= 16),
        created_at timestamptz not null default now()
      );
    `);
    this.addSql(
      `insert into service_keys (name, key) values ('lobby_cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));`,
    );
    this.addSql(`
      create table contests (
        id uuid primary key,
        title text not null,
        category text not null check (category in ('mentions', 'sports', 'culture')),
        game_type text not null check (game_type in ('lineups', 'outcast', 'survivor', 'streak')),
        description text null,
        status text not null default 'open' check (status in ('open', 'resolved', 'voided')),
        bet_amount bigint not null check (bet_amount > 0),
        protocol_prize_pool bigint not null check (protocol_prize_pool >= 0),
        entry_cap integer not null check (entry_cap > 0),
        max_entries_per_user integer not null default 1 check (max_entries_per_user > 0),
        entries_filled integer not null default 0,
        open_market_count integer not null default 0 check (open_market_count >= 0),
        entry_opens_at_ms bigint null,
        betting_closes_ms bigint not null,
        live_ends_at_ms bigint null,
        bet_type_kind text not null check (bet_type_kind in ('num_bets', 'bets_per_category')),
        bet_type_value integer not null check (bet_type_value > 0),
        winning_split_bps integer[] not null,
        image_id text null,
        entry_visibility text not null check (entry_visibility in ('visible', 'hidden_while_betting_open')),
        created_at_ms bigint not null,
        resolved_at_ms bigint null,
        voided_at_ms bigint null,
        constraint contests_entries_filled_check check (entries_filled between 0 and entry_cap),
        constraint contests_resolved_check check ((status = 'resolved') = (resolved_at_ms is not null)),
        constraint contests_voided_check check ((status = 'voided') = (voided_at_ms is not null))
      );
    `);
    this.addSql('create index contests_lobby_idx on contests (created_at_ms desc, id desc);');
    this.addSql('create index contests_lobby_status_idx on contests (status, created_at_ms desc, id desc);');
    this.addSql('create index contests_lobby_category_idx on contests (category, created_at_ms desc, id desc);');
    this.addSql('create index contests_lobby_status_category_idx on contests (status, category, created_at_ms desc, id desc);');
    // Contests whose every market is settled but which are still open: what the resolution relay looks for.
    this.addSql(`create index contests_awaiting_resolution_idx on contests (id) where status = 'open' and open_market_count = 0;`);
    this.addSql(`create index contests_resolved_kind_idx on contests (category, game_type, resolved_at_ms) where status = 'resolved';`);
    this.addSql(`
      create table contest_markets (
        market_id bigint primary key references markets (market_id),
        contest_id uuid not null references contests (id),
        position integer not null,
        category text not null,
        name text not null,
        description text null,
        status text not null default 'OPEN' check (status in ('OPEN', 'RESOLVED', 'VOIDED')),
        outcome text null check (outcome in ('YES', 'NO')),
        source_kind text null,
        source_event_id text null,
        source_market_id text null,
        betting_closes_at_ms bigint null,
        live_ends_at_ms bigint null,
        resolution_time_ms bigint null,
        resolved_at_ms bigint null,
        up_count integer not null default 0 check (up_count >= 0),
        down_count integer not null default 0 check (down_count >= 0),
        unique (contest_id, position),
        constraint contest_markets_settled_outcome_check check ((status = 'RESOLVED') = (outcome is not null)),
        constraint contest_markets_settled_at_check check ((status = 'OPEN') = (resolved_at_ms is null))
      );
    `);
    this.addSql(`
      create table contest_entries (
        id uuid primary key,
        contest_id uuid not null references contests (id),
        user_id uuid not null references users (id),
        entry_index integer not null check (entry_index >= 0),
        created_at_ms bigint not null,
        pick_count integer not null check (pick_count > 0),
        resolved_win_count integer not null default 0 check (resolved_win_count >= 0),
        resolved_leg_count integer not null default 0 check (resolved_leg_count >= 0),
        score integer not null default 0 check (score >= 0),
        payout bigint null check (payout >= 0),
        rank integer null check (rank >= 1),
        unique (contest_id, user_id, entry_index),
        constraint contest_entries_legs_check check (resolved_leg_count <= pick_count and resolved_win_count <= resolved_leg_count and score <= resolved_win_count)
      );
    `);
    this.addSql('create index contest_entries_board_idx on contest_entries (contest_id, score desc, created_at_ms, id);');
    this.addSql('create index contest_entries_user_idx on contest_entries (user_id, contest_id);');
    this.addSql('create index contest_entries_paid_idx on contest_entries (contest_id) include (user_id, payout) where payout > 0;');
    this.addSql(`
      create table contest_entry_picks (
        entry_id uuid not null references contest_entries (id),
        market_id bigint not null references contest_markets (market_id),
        direction text not null check (direction in ('up', 'down')),
        primary key (entry_id, market_id)
      );
    `);
    this.addSql('create index contest_entry_picks_market_idx on contest_entry_picks (market_id, direction);');
    this.addSql(`
      create table contest_score_counts (
        contest_id uuid not null references contests (id),
        score integer not null check (score >= 0),
        entries integer not null check (entries >= 0),
        primary key (contest_id, score)
      );
    `);
    // Pots: one contest_pot account per contest (user_id null), used only inside the resolution posting.
    this.addSql('alter table ledger_accounts add column contest_id uuid null references contests (id);');
    this.addSql(
      `alter table ledger_accounts add constraint ledger_accounts_pot_check check ((kind = 'contest_pot') = (contest_id is not null));`,
    );
    this.addSql(`create unique index ledger_accounts_pot_key on ledger_accounts (contest_id) where kind = 'contest_pot';`);
  }

  override down(): void {
    this.addSql('drop index if exists ledger_accounts_pot_key;');
    this.addSql('alter table ledger_accounts drop constraint if exists ledger_accounts_pot_check;');
    this.addSql('alter table ledger_accounts drop column if exists contest_id;');
    this.addSql('drop table if exists contest_score_counts;');
    this.addSql('drop table if exists contest_entry_picks;');
    this.addSql('drop table if exists contest_entries;');
    this.addSql('drop table if exists contest_markets;');
    this.addSql('drop table if exists contests;');
    this.addSql('drop table if exists pool_images;');
    this.addSql('drop table if exists service_keys;');
  }
}
