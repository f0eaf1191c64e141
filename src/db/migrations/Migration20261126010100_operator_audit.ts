import { Migration } from '@mikro-orm/migrations';

// The operator audit trail (docs/operations.md, "Operator accounts and the audit trail"): one row per
// operator write, appended in the change's own transaction where the change is transactional. Append-only:
// triggers refuse UPDATE, DELETE and TRUNCATE for every role, the table owner included (a grant would not
// bind the owner the service connects as).
export class Migration20261126010100_operator_audit extends Migration {
  override name = 'Migration20261126010100_operator_audit';

  override up(): void {
    this.addSql(`
      create table operator_audit (
        id uuid primary key,
        at_ms int8 not null,
        operator text not null,
        request_id text not null,
        operation_id text not null,
        method text not null,
        path text not null,
        target text null,
        body jsonb null,
        status int4 not null,
        error_code text null,
        in_transaction boolean not null
      );
    `);
    this.addSql('create index operator_audit_at_idx on operator_audit (at_ms desc, id desc);');
    this.addSql(`
      create function operator_audit_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'operator_audit is append-only: % is refused', tg_op using errcode = '42501';
      end $$;
    `);
    this.addSql(`
      create trigger operator_audit_no_change before update or delete on operator_audit
        for each row execute function operator_audit_append_only();
    `);
    this.addSql(`
      create trigger operator_audit_no_truncate before truncate on operator_audit
        for each statement execute function operator_audit_append_only();
    `);
  }

  override down(): void {
    this.addSql('drop table operator_audit;');
    this.addSql('drop function operator_audit_append_only();');
  }
}
