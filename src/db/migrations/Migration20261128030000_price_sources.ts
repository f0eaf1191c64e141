import { Migration } from '@mikro-orm/migrations';

// Price sources that resolve in production (docs/prices.md):
// - window_price_readings: each reading's `abstained_reason` code (the public answer; `error` stays internal,
//   with URLs removed), the maximum age its source was judged by, and Pyth's confidence of each side.
// - price_source_health: each source's state from its probes (ok, failing, blocked, banned; unknown before the
//   first), why, when it was last probed and last ok, which offered assets it lists; and its circuit (open
//   until, why) after a 429/418, written by every process (the circuit's store when REDIS_URL is unset).
// - price_observations: every observation fetched for a (source, asset, boundary), so each boundary is fetched
//   once (window N's close is window N+1's open) by all processes; pruned after a day.
// - The failure texts stored before (readings' `error`, the sources' `last_error`) may hold an endpoint's URL with
//   its key (viem names the RPC URL): every URL in them is reduced to its scheme and host, as src/redact-url.ts does.
export class Migration20261128030000_price_sources extends Migration {
  override name = 'Migration20261128030000_price_sources';

  override up(): void {
    this.addSql(`
      alter table window_price_readings
        add column abstained_reason text null,
        add column max_age_ms bigint null,
        add column open_confidence_micros bigint null,
        add column close_confidence_micros bigint null;
    `);
    this.addSql(`
      alter table price_source_health
        add column state text null check (state in ('ok', 'failing', 'blocked', 'banned')),
        add column state_reason text null,
        add column state_detail text null,
        add column probed_at_ms bigint null,
        add column ok_at_ms bigint null,
        add column listed text null,
        add column unlisted text null,
        add column circuit_until_ms bigint null,
        add column circuit_reason text null check (circuit_reason in ('rate_limited', 'banned', 'unavailable'));
    `);
    this.addSql(`
      create table price_observations (
        source text not null,
        asset text not null,
        at_ms bigint not null,
        price_micros bigint not null check (price_micros > 0),
        observed_at_ms bigint not null,
        ref text null,
        confidence_micros bigint null,
        fetched_at_ms bigint not null,
        primary key (source, asset, at_ms)
      );
    `);
    this.addSql('create index price_observations_fetched_idx on price_observations (fetched_at_ms);');
    for (const [table, column] of [
      ['window_price_readings', 'error'],
      ['price_source_health', 'last_error'],
    ]) {
      this.addSql(
        `update ${table} set ${column} = regexp_replace(${column}, '([a-z][a-z0-9+.-]*://)([^/\\s"''<>@]*@)?([^/?#\\s"''<>]*)[^\\s"''<>)\\]]*', '\\1\\3/…', 'gi') where ${column} ~* '[a-z]://';`,
      );
    }
  }

  override down(): void {
    this.addSql('drop table if exists price_observations;');
    this
      .addSql(`alter table price_source_health drop column state, drop column state_reason, drop column state_detail, drop column probed_at_ms,
      drop column ok_at_ms, drop column listed, drop column unlisted, drop column circuit_until_ms, drop column circuit_reason;`);
    this.addSql(`alter table window_price_readings drop column abstained_reason, drop column max_age_ms, drop column open_confidence_micros,
      drop column close_confidence_micros;`);
  }
}
