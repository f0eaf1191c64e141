import { Migration } from '@mikro-orm/migrations';

// RFQ trading (docs/trading.md): taker RFQs, market makers' firm quotes, the positions fills create
// (with their legs and one fill row per maker), window resolutions and per-owner trading counters.
// Money stays in the ledger (stakes and maker liabilities sit in the owners' user_reserved accounts);
// these tables say why. Times are epoch milliseconds (int8), amounts int8 micros, addresses lowercase.
export class Migration20261125010000_rfq extends Migration {
  override name = 'Migration20261125010000_rfq';

  override up(): void {
    this.addSql(`
      create table rfqs (
        id uuid primary key,
        taker_user_id uuid not null references users (id),
        taker_address text not null check (taker_address ~ '^0x[0-9a-f]{40}$'),
        nonce bigint not null check (nonce >= 0),
        order_hash text not null check (order_hash ~ '^0x[0-9a-f]{64}$'),
        signature text not null,
        legs jsonb not null,
        stake bigint not null check (stake > 0),
        min_odds_bps integer not null check (min_odds_bps between 10001 and 10000000),
        order_type text not null check (order_type in ('IOC', 'FOK')),
        fill_mode text not null check (fill_mode in ('best', 'manual')),
        status text not null default 'open' check (status in ('open', 'filled', 'expired', 'cancelled')),
        deadline_ms bigint not null,
        quote_deadline_ms bigint not null,
        expires_at_ms bigint not null,
        due_at_ms bigint not null,
        created_at_ms bigint not null,
        closed_at_ms bigint null,
        filled_stake bigint not null default 0 check (filled_stake >= 0 and filled_stake <= stake),
        payout bigint null check (payout >= filled_stake),
        odds_bps integer null,
        position_id uuid null,
        close_reason text null check (close_reason in ('no_quotes', 'below_min_odds', 'insufficient_liquidity', 'deadline', 'betting_closed', 'cancelled')),
        idempotency_key uuid null,
        constraint rfqs_closed_check check ((status = 'open') = (closed_at_ms is null)),
        constraint rfqs_filled_check check ((status = 'filled') = (position_id is not null)),
        constraint rfqs_taker_nonce_key unique (taker_address, nonce)
      );
    `);
    this.addSql(`create index rfqs_due_idx on rfqs (due_at_ms) where status = 'open';`);
    this.addSql(`create index rfqs_taker_open_idx on rfqs (taker_user_id) where status = 'open';`);
    this.addSql('create index rfqs_taker_created_idx on rfqs (taker_user_id, created_at_ms desc, id desc);');
    this.addSql('create index rfqs_taker_status_created_idx on rfqs (taker_user_id, status, created_at_ms desc, id desc);');
    this.addSql(`
      create table rfq_quotes (
        id uuid primary key,
        rfq_id uuid not null references rfqs (id),
        maker_address text not null check (maker_address ~ '^0x[0-9a-f]{40}$'),
        maker_user_id uuid null references users (id),
        client_quote_id uuid null,
        odds_bps integer not null check (odds_bps between 10001 and 10000000),
        max_fill bigint not null check (max_fill > 0),
        valid_until_ms bigint not null,
        signature text not null,
        status text not null default 'live' check (status in ('live', 'filled', 'not_filled', 'rejected', 'replaced', 'cancelled')),
        reason text null,
        filled_stake bigint not null default 0 check (filled_stake >= 0),
        received_at_ms bigint not null,
        constraint rfq_quotes_client_quote_key unique (maker_address, client_quote_id)
      );
    `);
    this.addSql(`create unique index rfq_quotes_live_key on rfq_quotes (rfq_id, maker_address) where status = 'live';`);
    this.addSql(`create index rfq_quotes_live_best_idx on rfq_quotes (rfq_id, odds_bps desc, received_at_ms) where status = 'live';`);
    this.addSql('create index rfq_quotes_rfq_idx on rfq_quotes (rfq_id);');
    this.addSql(`
      create table positions (
        id uuid primary key,
        rfq_id uuid not null unique references rfqs (id),
        taker_user_id uuid not null references users (id),
        taker_address text not null,
        stake bigint not null check (stake > 0),
        payout bigint not null check (payout >= stake),
        odds_bps integer not null,
        status text not null default 'open' check (status in ('open', 'won', 'lost', 'voided')),
        pnl bigint null,
        created_at_ms bigint not null,
        resolved_at_ms bigint null,
        settle_tx_id uuid null,
        constraint positions_resolved_check check ((status = 'open') = (resolved_at_ms is null) and (status = 'open') = (pnl is null))
      );
    `);
    this.addSql('create index positions_taker_created_idx on positions (taker_user_id, created_at_ms desc, id desc);');
    this.addSql('create index positions_taker_status_created_idx on positions (taker_user_id, status, created_at_ms desc, id desc);');
    this.addSql(
      'create index positions_taker_resolved_idx on positions (taker_user_id, resolved_at_ms, id) where resolved_at_ms is not null;',
    );
    this.addSql(`
      create table position_legs (
        position_id uuid not null references positions (id),
        leg_index smallint not null check (leg_index between 0 and 8),
        market_id bigint not null references markets (market_id),
        direction text not null check (direction in ('up', 'down')),
        outcome text not null default 'pending' check (outcome in ('pending', 'won', 'lost', 'voided')),
        primary key (position_id, leg_index)
      );
    `);
    this.addSql(`create index position_legs_pending_market_idx on position_legs (market_id) where outcome = 'pending';`);
    this.addSql(`
      create table position_fills (
        id uuid primary key,
        position_id uuid not null references positions (id),
        quote_id uuid not null unique references rfq_quotes (id),
        maker_address text not null,
        maker_user_id uuid not null references users (id),
        stake bigint not null check (stake > 0),
        odds_bps integer not null,
        payout bigint not null check (payout >= stake),
        liability bigint not null check (liability >= 0 and liability = payout - stake),
        maker_pnl bigint null,
        created_at_ms bigint not null
      );
    `);
    this.addSql('create index position_fills_position_idx on position_fills (position_id);');
    this.addSql('create index position_fills_maker_created_idx on position_fills (maker_address, created_at_ms desc, id desc);');
    this.addSql(`
      create table window_resolutions (
        market_id bigint primary key references markets (market_id),
        outcome text not null check (outcome in ('YES', 'NO', 'VOID')),
        open_price_micros bigint null,
        close_price_micros bigint null,
        source text not null,
        resolved_by text not null check (resolved_by in ('feed', 'operator')),
        resolved_at_ms bigint not null
      );
    `);
    this.addSql(`
      create table trading_stats (
        owner text primary key check (owner ~ '^(user:[0-9a-f-]{36}|mm:0x[0-9a-f]{40})$'),
        open_count integer not null default 0 check (open_count >= 0),
        open_stake bigint not null default 0 check (open_stake >= 0),
        potential_payout bigint not null default 0 check (potential_payout >= 0),
        settled_count integer not null default 0,
        wins integer not null default 0,
        losses integer not null default 0,
        voided integer not null default 0,
        realized_pnl bigint not null default 0
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists trading_stats;');
    this.addSql('drop table if exists window_resolutions;');
    this.addSql('drop table if exists position_fills;');
    this.addSql('drop table if exists position_legs;');
    this.addSql('drop table if exists positions;');
    this.addSql('drop table if exists rfq_quotes;');
    this.addSql('drop table if exists rfqs;');
  }
}
