import { Migration } from '@mikro-orm/migrations';

// Market makers as first-class users (docs/market-makers.md): a maker's live quotes are found by wallet
// (removal withdraws them all, GET /v1/mm/quotes?status=live lists them), so they get a partial index; and
// market-maker protection keeps each maker's limits and counters in mm_protections.
export class Migration20261126050000_market_makers_first_class extends Migration {
  override name = 'Migration20261126050000_market_makers_first_class';

  override up(): void {
    this.addSql(`create index rfq_quotes_maker_live_idx on rfq_quotes (maker_address, received_at_ms, id) where status = 'live';`);
    // Market-maker protection (MMP): a maker's limits per interval and its counters; tripped_at_ms set = tripped.
    this.addSql(`
      create table mm_protections (
        maker_address text primary key check (maker_address ~ '^0x[0-9a-f]{40}$'),
        interval_ms bigint not null check (interval_ms between 1000 and 86400000),
        max_fills integer null check (max_fills >= 1),
        max_liability bigint null check (max_liability >= 1),
        window_start_ms bigint not null default 0,
        window_fills integer not null default 0,
        window_liability bigint not null default 0,
        tripped_at_ms bigint null,
        constraint mm_protections_limit_check check (max_fills is not null or max_liability is not null)
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists mm_protections;');
    this.addSql('drop index if exists rfq_quotes_maker_live_idx;');
  }
}
