import { Migration } from '@mikro-orm/migrations';

// No refund, no failure and no skipped credit on the absence of a receipt (docs/settlement.md, "What the
// service concludes from the node"). operations.pending_reason says why a pending operation waits:
// `receipt_missing` (the settlement wallet's nonce is used on chain but none of the operation's transactions
// has a receipt yet: a lagging node, usually) and, after CHAIN_RECEIPT_REVIEW_AFTER_MS of that (or at once
// when a block shows another transaction at the nonce), `needs_review`: only an operator resolves it, through
// POST /v1/admin/operations/{operation_id}/resolve, recorded in settlement_resolutions. pending_reason_at is
// when the reason began. operation_outbox.due_at is when the outbox relay next hands the operation to a
// worker (an operation in review is looked at again every CHAIN_REVIEW_RECHECK_MS, not every relay tick).
export class Migration20261128010000_settlement_review extends Migration {
  override name = 'Migration20261128010000_settlement_review';

  override up(): void {
    this.addSql(`
      alter table operations
        add column pending_reason text check (pending_reason in ('receipt_missing', 'needs_review')),
        add column pending_reason_at timestamptz;`);
    this.addSql(`alter table operation_outbox add column due_at timestamptz not null default now();`);
    this.addSql(`create index operation_outbox_due_at_idx on operation_outbox (due_at);`);
    this.addSql(`
      create table settlement_resolutions (
        operation_id uuid primary key references operations (id),
        outcome text not null check (outcome in ('success', 'failed')),
        tx_hash text check (tx_hash ~ '^0x[0-9a-f]{64}$'),
        reason text not null check (length(reason) between 1 and 500),
        operator text not null,
        created_at timestamptz not null default now(),
        check ((outcome = 'success') = (tx_hash is not null))
      );`);
  }

  override down(): void {
    this.addSql('drop table settlement_resolutions;');
    this.addSql('alter table operation_outbox drop column due_at;');
    this.addSql('alter table operations drop column pending_reason, drop column pending_reason_at;');
  }
}
