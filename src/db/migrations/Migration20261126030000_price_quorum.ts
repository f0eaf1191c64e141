import { Migration } from '@mikro-orm/migrations';

// Windows resolved by a quorum of price sources (docs/prices.md). window_price_checks holds the one feed
// decision per window (agreed, or disputed until the operator resolves it or void_at_ms passes) with the
// rule applied; window_price_readings every source's open and close reading that took part, with the
// source's own identifier. Both are written once (first writer wins) and never change.
// price_source_health: each source's last success and failure, request and failure counts and total
// latency, written by the workers and read by /readyz and /metrics of any process.
export class Migration20261126030000_price_quorum extends Migration {
  override name = 'Migration20261126030000_price_quorum';

  override up(): void {
    this.addSql(`
      create table window_price_checks (
        market_id bigint primary key references markets (market_id),
        state text not null check (state in ('agreed', 'disputed')),
        reason text null check (reason in ('disagreement', 'too_few_readings')),
        quorum smallint not null check (quorum >= 1),
        sources text not null,
        max_age_ms bigint not null,
        checked_at_ms bigint not null,
        void_at_ms bigint null,
        check ((state = 'disputed') = (void_at_ms is not null and reason is not null))
      );
    `);
    this.addSql(`
      create table window_price_readings (
        market_id bigint not null references window_price_checks (market_id),
        source text not null,
        verdict text not null check (verdict in ('YES', 'NO', 'stale', 'missing')),
        open_price_micros bigint null,
        open_observed_at_ms bigint null,
        open_ref text null,
        close_price_micros bigint null,
        close_observed_at_ms bigint null,
        close_ref text null,
        error text null,
        primary key (market_id, source)
      );
    `);
    this.addSql(`
      create table price_source_health (
        source text primary key,
        last_success_at_ms bigint null,
        last_failure_at_ms bigint null,
        last_error text null,
        requests bigint not null default 0,
        failures bigint not null default 0,
        latency_ms_total bigint not null default 0
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists price_source_health;');
    this.addSql('drop table if exists window_price_readings;');
    this.addSql('drop table if exists window_price_checks;');
  }
}
