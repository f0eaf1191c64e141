import { Migration } from '@mikro-orm/migrations';

// Exactly once by construction (issue 11 item 3). The idempotency key is claimed, the write done and the
// outcome stored in one transaction (src/domain/idempotency.ts); on top of that every write carries its
// key under a unique index, so even a key row lost or taken over cannot let a second write commit:
//   operations (user_id, kind, idempotency_key), contest_entries (user_id, idempotency_key),
//   ledger_transactions (kind, idempotency_key) for app-token credits ("<user id>:<key>").
// idempotency_keys gains resource_id (the operation, entry or ledger transaction the outcome refers to)
// and lease_expires_at (an in-progress key left by a dead request is taken over after its lease); its
// response_body becomes json, kept as written, so a replay is byte-for-byte the first body.
export class Migration20261123010000_exactly_once extends Migration {
  override name = 'Migration20261123010000_exactly_once';

  override up(): void {
    // json, not jsonb: a replay answers the first body byte for byte (jsonb reorders object keys).
    this.addSql('alter table idempotency_keys alter column response_body type json using response_body::json;');
    this.addSql('alter table idempotency_keys add column resource_id uuid null;');
    this.addSql('alter table idempotency_keys add column lease_expires_at timestamptz null;');
    this.addSql(`update idempotency_keys set lease_expires_at = created_at + interval '60 seconds' where state = 'in_progress';`);
    this.addSql(
      `alter table idempotency_keys add constraint idempotency_keys_lease_check check ((state = 'in_progress') = (lease_expires_at is not null));`,
    );
    this.addSql('alter table operations add column idempotency_key uuid null;');
    this.addSql(
      'create unique index operations_idempotency_key on operations (user_id, kind, idempotency_key) where idempotency_key is not null;',
    );
    this.addSql('alter table contest_entries add column idempotency_key uuid null;');
    this.addSql(
      'create unique index contest_entries_idempotency_key on contest_entries (user_id, idempotency_key) where idempotency_key is not null;',
    );
    this.addSql('alter table ledger_transactions add column idempotency_key text null;');
    this.addSql(
      'create unique index ledger_transactions_idempotency_key on ledger_transactions (kind, idempotency_key) where idempotency_key is not null;',
    );
  }

  override down(): void {
    this.addSql('drop index if exists ledger_transactions_idempotency_key, contest_entries_idempotency_key, operations_idempotency_key;');
    this.addSql('alter table ledger_transactions drop column if exists idempotency_key;');
    this.addSql('alter table contest_entries drop column if exists idempotency_key;');
    this.addSql('alter table operations drop column if exists idempotency_key;');
    this.addSql('alter table idempotency_keys drop constraint if exists idempotency_keys_lease_check;');
    this.addSql('alter table idempotency_keys drop column if exists lease_expires_at, drop column if exists resource_id;');
    this.addSql('alter table idempotency_keys alter column response_body type jsonb using response_body::jsonb;');
  }
}
