import { Migration } from '@mikro-orm/migrations';

// Markets: one row per market, RFQ windows now and contest markets later, all numbered from one sequence
// ("a market_id names one market": spec/openapi.yaml). An RFQ window is unique per
// (asset, duration_secs, start_at_ms): concurrent creators (API on demand, several rollover workers)
// insert ... on conflict do nothing and re-read, so each window gets exactly one market_id.
export class Migration20261120020000_markets extends Migration {
  override name = 'Migration20261120020000_markets';

  override up(): void {
    this.addSql('create sequence market_id_seq as bigint start with 1;');
    this.addSql(`
      create table markets (
        market_id bigint primary key default nextval('market_id_seq'),
        kind text not null check (kind in ('rfq_window', 'contest')),
        asset text null check (asset ~ '^[A-Z0-9]{1,16}$'),
        duration_secs integer null check (duration_secs > 0),
        start_at_ms bigint null check (start_at_ms >= 0),
        created_at timestamptz not null default now(),
        constraint markets_rfq_window_check check (
          kind <> 'rfq_window'
          or (asset is not null and duration_secs is not null and start_at_ms is not null
              and start_at_ms % (duration_secs::bigint * 1000) = 0)
        )
      );
    `);
    this.addSql('alter sequence market_id_seq owned by markets.market_id;');
    this.addSql(`create unique index markets_rfq_window_key on markets (asset, duration_secs, start_at_ms) where kind = 'rfq_window';`);
  }

  override down(): void {
    this.addSql('drop table if exists markets;');
    this.addSql('drop sequence if exists market_id_seq;');
  }
}
