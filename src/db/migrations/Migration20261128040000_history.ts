import { Migration } from '@mikro-orm/migrations';

// The user's history (docs/trading.md, "The user's statement"; GET /v1/users/operations and /v1/users/ledger).
//
// A ledger entry's id is now taken AFTER its account's row lock, so each account's entries are numbered in the
// order their transactions commit. Before, the id came from the column default, drawn before the balance
// trigger waited for the lock: a posting that waited could carry a lower id than one that committed before it.
// The trigger now runs BEFORE INSERT: it moves the cached balance (the UPDATE takes, or already holds, the
// account's row lock; the balance CHECK refuses a negative user balance exactly as before), then draws the
// entry's id from the same sequence. The default's value is discarded (ids keep growing, with gaps). The
// sequence has no cache (bigserial's default, cache 1), so a value drawn later is always greater, across sessions.
// What it buys, for every account: an entry committed after a reader's snapshot has a higher id than every entry
// the reader saw, and one transaction's entries on one account are consecutive among that account's entries
// (it holds the lock from its first entry there to its commit). The statement's cursor builds on both
// (src/db/repositories/statement.repository.ts). No other statement of a posting, and no round trip, is added.
//
// Indexes: a user's entries newest first per account, (account_id, id), replaces (account_id); a user's
// operations newest first, (user_id, created_at, id), replaces (user_id, created_at).
export class Migration20261128040000_history extends Migration {
  override name = 'Migration20261128040000_history';

  override up(): void {
    this.addSql(`
      create or replace function ledger_apply_entry() returns trigger language plpgsql as $$
      begin
        update ledger_accounts set balance = balance + new.amount where id = new.account_id;
        new.id := nextval('ledger_entries_id_seq');
        return new;
      end $$;
    `);
    this.addSql('drop trigger ledger_entries_apply on ledger_entries;');
    this.addSql('create trigger ledger_entries_apply before insert on ledger_entries for each row execute function ledger_apply_entry();');
    this.addSql('create index ledger_entries_account_id_idx on ledger_entries (account_id, id);');
    this.addSql('drop index if exists ledger_entries_account_idx;');
    this.addSql('create index operations_user_created_idx on operations (user_id, created_at, id);');
    this.addSql('drop index if exists operations_user_idx;');
  }

  override down(): void {
    this.addSql('create index if not exists operations_user_idx on operations (user_id, created_at);');
    this.addSql('drop index if exists operations_user_created_idx;');
    this.addSql('create index if not exists ledger_entries_account_idx on ledger_entries (account_id);');
    this.addSql('drop index if exists ledger_entries_account_id_idx;');
    this.addSql('drop trigger ledger_entries_apply on ledger_entries;');
    this.addSql(`
      create or replace function ledger_apply_entry() returns trigger language plpgsql as $$
      begin
        update ledger_accounts set balance = balance + new.amount where id = new.account_id;
        return new;
      end $$;
    `);
    this.addSql('create trigger ledger_entries_apply after insert on ledger_entries for each row execute function ledger_apply_entry();');
  }
}
