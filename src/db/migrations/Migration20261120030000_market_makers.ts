import { Migration } from '@mikro-orm/migrations';

// Market makers registered by the operator API (spec/openapi.yaml, the operator API). The wallet is stored in EIP-55
// checksum form and is unique in any letter case. Removal is a soft delete (removed_at), so a removed
// maker's sessions stay explainable; registering the wallet again clears removed_at.
export class Migration20261120030000_market_makers extends Migration {
  override name = 'Migration20261120030000_market_makers';

  override up(): void {
    this.addSql(`
      create table market_makers (
        wallet_address text primary key check (wallet_address ~ '^0x[0-9a-fA-F]{40}$'),
        name text not null check (char_length(name) between 1 and 100),
        created_at timestamptz not null default now(),
        removed_at timestamptz null
      );
    `);
    this.addSql('create unique index market_makers_wallet_address_lower_key on market_makers (lower(wallet_address));');
  }

  override down(): void {
    this.addSql('drop table if exists market_makers;');
  }
}
