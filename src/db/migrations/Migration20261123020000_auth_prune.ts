import { Migration } from '@mikro-orm/migrations';

// Indexes for the housekeeping prune of expired sessions and used or expired wallet nonces
// (src/domain/identity/prune.ts): each delete is an index range scan, not a table scan.
// wallet_nonces (expires_at) exists since the identity migration.
export class Migration20261123020000_auth_prune extends Migration {
  override name = 'Migration20261123020000_auth_prune';

  override up(): void {
    this.addSql('create index if not exists sessions_expires_at_idx on sessions (expires_at);');
    this.addSql('create index if not exists sessions_revoked_at_idx on sessions (revoked_at) where revoked_at is not null;');
    this.addSql('create index if not exists wallet_nonces_used_at_idx on wallet_nonces (used_at) where used_at is not null;');
  }

  override down(): void {
    this.addSql('drop index if exists wallet_nonces_used_at_idx;');
    this.addSql('drop index if exists sessions_revoked_at_idx;');
    this.addSql('drop index if exists sessions_expires_at_idx;');
  }
}
