import { Migration } from '@mikro-orm/migrations';

// The deferred balance check of a ledger transaction ran once per entry and summed the whole transaction
// each time: O(n^2) at COMMIT (a 4,000-entry posting spent 2.3 s committing, a 200,000-entry contest payout
// would spend about an hour). Now only the transaction's last entry (highest id) sums it; the others find
// a later entry through (transaction_id, id) and return. Same guarantee: every transaction is checked at
// COMMIT, after all of its entries exist.
export class Migration20261125020000_ledger_check_once extends Migration {
  override name = 'Migration20261125020000_ledger_check_once';

  override up(): void {
    this.addSql('create index ledger_entries_transaction_id_idx on ledger_entries (transaction_id, id);');
    this.addSql('drop index if exists ledger_entries_transaction_idx;');
    this.addSql(`
      create or replace function ledger_check_balanced() returns trigger language plpgsql as $$
      declare total numeric;
      begin
        if exists (select 1 from ledger_entries where transaction_id = new.transaction_id and id > new.id) then
          return null; -- a later entry of the same transaction checks it
        end if;
        select coalesce(sum(amount), 0) into total from ledger_entries where transaction_id = new.transaction_id;
        if total <> 0 then
          raise exception 'ledger transaction % does not sum to zero (sum %)', new.transaction_id, total using errcode = '23514';
        end if;
        return null;
      end $$;
    `);
  }

  override down(): void {
    this.addSql(`
      create or replace function ledger_check_balanced() returns trigger language plpgsql as $$
      declare total numeric;
      begin
        select coalesce(sum(amount), 0) into total from ledger_entries where transaction_id = new.transaction_id;
        if total <> 0 then
          raise exception 'ledger transaction % does not sum to zero (sum %)', new.transaction_id, total using errcode = '23514';
        end if;
        return null;
      end $$;
    `);
    this.addSql('create index if not exists ledger_entries_transaction_idx on ledger_entries (transaction_id);');
    this.addSql('drop index if exists ledger_entries_transaction_id_idx;');
  }
}
