import { Migration } from '@mikro-orm/migrations';

// Money: a double-entry ledger, deposit/withdraw operations with their outbox, and idempotency keys.
// The database, not only the code, keeps the money rules:
//   - a user account's balance can never go negative (CHECK on the cached balance);
//   - the cached balance is maintained by a trigger on every entry insert, so it always equals the sum of
//     the account's entries;
//   - every ledger transaction's entries sum to zero (deferred constraint trigger, checked at COMMIT);
//   - entries and transactions are append-only (UPDATE, DELETE and TRUNCATE raise).
export class Migration20261120040000_ledger extends Migration {
  override name = 'Migration20261120040000_ledger';

  override up(): void {
    this.addSql(`
      create table ledger_accounts (
        id bigserial primary key,
        user_id uuid null references users (id),
        kind text not null check (kind in ('user_available', 'user_reserved', 'user_app_token', 'settlement_clearing', 'treasury', 'contest_pot')),
        balance bigint not null default 0,
        created_at timestamptz not null default now(),
        constraint ledger_accounts_owner_check check ((kind like 'user\\_%') = (user_id is not null)),
        constraint ledger_accounts_user_balance_check check (user_id is null or balance >= 0)
      );
    `);
    this.addSql('create unique index ledger_accounts_user_kind_key on ledger_accounts (user_id, kind) where user_id is not null;');
    this.addSql(
      `create unique index ledger_accounts_system_kind_key on ledger_accounts (kind) where user_id is null and kind <> 'contest_pot';`,
    );
    this.addSql(`insert into ledger_accounts (kind) values ('settlement_clearing'), ('treasury');`);
    this.addSql(`
      create table ledger_transactions (
        id uuid primary key,
        kind text not null,
        reference text not null,
        created_at timestamptz not null default now()
      );
    `);
    this.addSql('create index ledger_transactions_reference_idx on ledger_transactions (reference);');
    this.addSql(`
      create table ledger_entries (
        id bigserial primary key,
        transaction_id uuid not null references ledger_transactions (id),
        account_id bigint not null references ledger_accounts (id),
        amount bigint not null check (amount <> 0),
        created_at timestamptz not null default now()
      );
    `);
    this.addSql('create index ledger_entries_transaction_idx on ledger_entries (transaction_id);');
    this.addSql('create index ledger_entries_account_idx on ledger_entries (account_id);');
    this.addSql(`
      create function ledger_apply_entry() returns trigger language plpgsql as $$
      begin
        update ledger_accounts set balance = balance + new.amount where id = new.account_id;
        return new;
      end $$;
    `);
    this.addSql('create trigger ledger_entries_apply after insert on ledger_entries for each row execute function ledger_apply_entry();');
    this.addSql(`
      create function ledger_check_balanced() returns trigger language plpgsql as $$
      declare total numeric;
      begin
        select coalesce(sum(amount), 0) into total from ledger_entries where transaction_id = new.transaction_id;
        if total <> 0 then
          raise exception 'ledger transaction % does not sum to zero (sum %)', new.transaction_id, total using errcode = '23514';
        end if;
        return null;
      end $$;
    `);
    this.addSql(`
      create constraint trigger ledger_entries_balanced after insert on ledger_entries
        deferrable initially deferred for each row execute function ledger_check_balanced();
    `);
    this.addSql(`
      create function ledger_append_only() returns trigger language plpgsql as $$
      begin
        raise exception '% is append-only: % is not allowed', tg_table_name, tg_op using errcode = '42501';
      end $$;
    `);
    for (const t of ['ledger_entries', 'ledger_transactions']) {
      this.addSql(`create trigger ${t}_no_update before update or delete on ${t} for each row execute function ledger_append_only();`);
      this.addSql(`create trigger ${t}_no_truncate before truncate on ${t} for each statement execute function ledger_append_only();`);
    }
    this.addSql(`
      create table operations (
        id uuid primary key,
        user_id uuid not null references users (id),
        kind text not null check (kind in ('deposit', 'withdraw')),
        status text not null default 'pending' check (status in ('pending', 'success', 'failed')),
        amount bigint not null check (amount > 0),
        destination_address text null check (destination_address ~ '^0x[0-9a-fA-F]{40}$'),
        tx_hash text null check (tx_hash ~ '^0x[0-9a-f]{64}$'),
        failure_code text null,
        created_at timestamptz not null default now(),
        settled_at timestamptz null,
        constraint operations_destination_check check ((kind = 'withdraw') = (destination_address is not null)),
        constraint operations_settled_check check ((status = 'pending') = (settled_at is null)),
        constraint operations_failure_check check ((status = 'failed') = (failure_code is not null))
      );
    `);
    this.addSql('create index operations_user_idx on operations (user_id, created_at);');
    this.addSql(`create index operations_pending_idx on operations (created_at) where status = 'pending';`);
    // Outbox: one row per operation still to settle, written in the operation's transaction and deleted
    // in the settling transaction. The relay re-enqueues rows older than a few seconds.
    this.addSql(`
      create table operation_outbox (
        operation_id uuid primary key references operations (id),
        created_at timestamptz not null default now(),
        enqueued_at timestamptz null
      );
    `);
    this.addSql(`
      create table idempotency_keys (
        scope text not null,
        operation text not null,
        key uuid not null,
        fingerprint text not null check (fingerprint ~ '^[0-9a-f]{64}$'),
        state text not null check (state in ('in_progress', 'done')),
        response_status integer null,
        response_body jsonb null,
        created_at timestamptz not null default now(),
        completed_at timestamptz null,
        primary key (scope, operation, key),
        constraint idempotency_keys_done_check check ((state = 'done') = (response_status is not null))
      );
    `);
    this.addSql('create index idempotency_keys_created_at_idx on idempotency_keys (created_at);');
  }

  override down(): void {
    this.addSql('drop table if exists idempotency_keys;');
    this.addSql('drop table if exists operation_outbox;');
    this.addSql('drop table if exists operations;');
    this.addSql('drop table if exists ledger_entries;');
    this.addSql('drop table if exists ledger_transactions;');
    this.addSql('drop table if exists ledger_accounts;');
    this.addSql('drop function if exists ledger_apply_entry, ledger_check_balanced, ledger_append_only;');
  }
}
