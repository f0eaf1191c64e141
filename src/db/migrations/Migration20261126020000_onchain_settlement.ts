import { Migration } from '@mikro-orm/migrations';

// Onchain settlement (docs/settlement.md). The settlement wallet's nonces are allocated here, never asked of
// the node at send time: chain_nonces holds the next nonce per (chain, sender), taken under its row lock in
// the transaction that stores the signed transaction. chain_transactions keeps every transaction an
// operation signed (its first and each same-nonce replacement), raw bytes included, written BEFORE it is
// broadcast, so a restarted worker re-broadcasts the stored bytes instead of signing anew; the outcome
// (block and receipt status) is recorded once the transaction has its confirmations. users.deposit_index
// numbers each user's custodial deposit address (BIP-44 m/44'/60'/0'/0/<index> of DEPOSIT_MNEMONIC); it
// starts at 1 so index 0, often a deployer's own account, is never a deposit address.
export class Migration20261126020000_onchain_settlement extends Migration {
  override name = 'Migration20261126020000_onchain_settlement';

  override up(): void {
    this.addSql(`
      create table chain_nonces (
        chain_id integer not null,
        address text not null,
        next_nonce bigint not null check (next_nonce >= 0),
        primary key (chain_id, address)
      );`);
    this.addSql(`
      create table chain_transactions (
        hash text primary key check (hash ~ '^0x[0-9a-f]{64}$'),
        chain_id integer not null,
        operation_id uuid not null references operations (id),
        from_address text not null,
        nonce bigint not null check (nonce >= 0),
        attempt integer not null check (attempt >= 0),
        raw text not null,
        max_fee_per_gas bigint not null,
        max_priority_fee_per_gas bigint not null,
        created_at timestamptz not null default now(),
        block_number bigint,
        receipt_status text check (receipt_status in ('success', 'reverted', 'dropped')),
        unique (operation_id, attempt),
        unique (chain_id, from_address, nonce, attempt)
      );`);
    this.addSql('create sequence users_deposit_index_seq minvalue 1 start 1;');
    this.addSql(`alter table users add column deposit_index bigint not null default nextval('users_deposit_index_seq');`);
    this.addSql('alter sequence users_deposit_index_seq owned by users.deposit_index;');
    this.addSql('alter table users add constraint users_deposit_index_key unique (deposit_index);');
  }

  override down(): void {
    this.addSql('alter table users drop column deposit_index;');
    this.addSql('drop table chain_transactions;');
    this.addSql('drop table chain_nonces;');
  }
}
