import { Migration } from '@mikro-orm/migrations';

// Market makers as first-class users (docs/market-makers.md): a maker's live quotes are found by wallet
// (removal withdraws them all, GET /v1/mm/quotes?status=live lists them), so they get a partial index.
export class Migration20261126050000_market_makers_first_class extends Migration {
  override name = 'Migration20261126050000_market_makers_first_class';

  override up(): void {
    this.addSql(`create index rfq_quotes_maker_live_idx on rfq_quotes (maker_address, received_at_ms, id) where status = 'live';`);
  }

  override down(): void {
    this.addSql('drop index if exists rfq_quotes_maker_live_idx;');
  }
}
