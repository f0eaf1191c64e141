import { Migration } from '@mikro-orm/migrations';

// Users, bearer sessions (only SHA-256 hashes of tokens are stored) and Sign-In with Ethereum nonces.
// Uniqueness that the rules depend on (one user per Privy subject, per wallet, per handle in any letter
// case) is enforced here, so concurrent requests cannot break it.
export class Migration20261120010000_identity extends Migration {
  override name = 'Migration20261120010000_identity';

  override up(): void {
    this.addSql(`
      create table users (
        id uuid primary key,
        privy_sub text null check (privy_sub like 'did:privy:%'),
        wallet_address text not null check (wallet_address ~ '^0x[0-9a-fA-F]{40}$'),
        handle text null check (handle ~ '^[A-Za-z0-9_]{3,20}$'),
        x_handle text null,
        x_avatar_url text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
    `);
    this.addSql('create unique index users_privy_sub_key on users (privy_sub);');
    this.addSql('create unique index users_wallet_address_lower_key on users (lower(wallet_address));');
    this.addSql('create unique index users_handle_lower_key on users (lower(handle));');
    this.addSql(`
      create table sessions (
        id uuid primary key,
        token_hash bytea not null check (octet_length(token_hash) = 32),
        kind text not null check (kind in ('user', 'market_maker')),
        user_id uuid null references users (id) on delete cascade,
        market_maker_address text null check (market_maker_address ~ '^0x[0-9a-fA-F]{40}$'),
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        revoked_at timestamptz null,
        constraint sessions_token_hash_key unique (token_hash),
        constraint sessions_owner_check check (
          (kind = 'user' and user_id is not null and market_maker_address is null)
          or (kind = 'market_maker' and user_id is null and market_maker_address is not null)
        )
      );
    `);
    this.addSql('create index sessions_user_id_idx on sessions (user_id);');
    this.addSql('create index sessions_market_maker_address_idx on sessions (lower(market_maker_address));');
    this.addSql(`
      create table wallet_nonces (
        nonce text primary key check (nonce ~ '^[A-Za-z0-9]{16,}$'),
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz null
      );
    `);
    this.addSql('create index wallet_nonces_expires_at_idx on wallet_nonces (expires_at);');
  }

  override down(): void {
    this.addSql('drop table if exists wallet_nonces;');
    this.addSql('drop table if exists sessions;');
    this.addSql('drop table if exists users;');
  }
}
