import { Migration } from '@mikro-orm/migrations';

// Custodial deposits (docs/settlement-custodial.md). deposit_addresses registers each user's custodial address
// (index users.deposit_index of DEPOSIT_MNEMONIC) when GET /v1/users/deposit-wallet first hands it out, with
// the chain's head then (the listener never needs to scan below it). chain_cursors keeps the listener's last
// scanned block and its hash (a changed hash is a reorganisation below the cursor). chain_deposits holds one
// row per credited Transfer log: its primary key (chain, transaction hash, log index) makes a second credit of
// the same log impossible; the credit's operation (kind deposit, success) is written in the same statement.
// deposit_sweeps moves a deposit address's USDC into the settlement wallet: an ETH top-up from the settlement
// wallet, then transfer() signed by the address's key; an address is due for one when its credits counter
// has moved past the sweep_mark taken when its last sweep opened; their transactions are rows of chain_transactions
// (sweep_id instead of operation_id), stored before broadcast like every other transaction.
export class Migration20261126020500_custodial_deposits extends Migration {
  override name = 'Migration20261126020500_custodial_deposits';

  override up(): void {
    this.addSql(`
      create table deposit_addresses (
        address text primary key check (address ~ '^0x[0-9a-fA-F]{40}$'),
        user_id uuid not null unique references users (id),
        deposit_index bigint not null unique,
        from_block bigint not null check (from_block >= 0),
        credits bigint not null default 0 check (credits >= 0),
        sweep_mark bigint not null default 0 check (sweep_mark >= 0),
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index deposit_addresses_unswept_idx on deposit_addresses (deposit_index) where credits > sweep_mark;');
    this.addSql(`
      create table chain_cursors (
        chain_id integer not null,
        name text not null,
        block_number bigint not null check (block_number >= 0),
        block_hash text not null check (block_hash ~ '^0x[0-9a-f]{64}$'),
        updated_at timestamptz not null default now(),
        primary key (chain_id, name)
      );`);
    this.addSql(`
      create table chain_deposits (
        chain_id integer not null,
        tx_hash text not null check (tx_hash ~ '^0x[0-9a-f]{64}$'),
        log_index integer not null check (log_index >= 0),
        block_number bigint not null,
        block_hash text not null,
        from_address text not null,
        to_address text not null references deposit_addresses (address),
        amount bigint not null check (amount > 0),
        operation_id uuid not null unique references operations (id) deferrable initially deferred,
        created_at timestamptz not null default now(),
        primary key (chain_id, tx_hash, log_index)
      );`);
    this.addSql(`
      create table deposit_sweeps (
        id uuid primary key,
        chain_id integer not null,
        address text not null references deposit_addresses (address),
        status text not null check (status in ('topup', 'transfer', 'done', 'failed')),
        amount bigint null check (amount > 0),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(
      `create unique index deposit_sweeps_active_key on deposit_sweeps (chain_id, address) where status in ('topup', 'transfer');`,
    );
    this.addSql('alter table chain_transactions alter column operation_id drop not null;');
    this.addSql('alter table chain_transactions add column sweep_id uuid null references deposit_sweeps (id);');
    this.addSql(
      'alter table chain_transactions add constraint chain_transactions_owner_check check (num_nonnulls(operation_id, sweep_id) = 1);',
    );
    this.addSql(
      'alter table chain_transactions add constraint chain_transactions_sweep_attempt_key unique (sweep_id, from_address, attempt);',
    );
  }

  override down(): void {
    this.addSql('delete from chain_transactions where sweep_id is not null;');
    this.addSql('alter table chain_transactions drop constraint chain_transactions_sweep_attempt_key;');
    this.addSql('alter table chain_transactions drop constraint chain_transactions_owner_check;');
    this.addSql('alter table chain_transactions drop column sweep_id;');
    this.addSql('alter table chain_transactions alter column operation_id set not null;');
    this.addSql('drop table deposit_sweeps;');
    this.addSql('drop table chain_deposits;');
    this.addSql('drop table chain_cursors;');
    this.addSql('drop table deposit_addresses;');
  }
}
