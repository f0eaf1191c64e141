import { Migration } from '@mikro-orm/migrations';

// Withdrawal controls (docs/operations.md, "Custody"). operations.fee_micros: a withdrawal's fee
// (WITHDRAWAL_FEE_MICROS when it was accepted), reserved with its amount and posted to the treasury when it is
// paid; 0 on deposits. pending_reason gains `review`: a withdrawal held for an operator (above
// WITHDRAWAL_REVIEW_ABOVE_MICROS, or past WITHDRAWALS_HOURLY_LIMIT_MICROS) stays pending with its amount and fee
// reserved, has no outbox row (nothing hands it to a worker) until an operator approves it. withdrawal_reviews
// keeps why it was held and the operator's decision: approved (its outbox row is written then) or rejected (the
// withdrawal fails with WITHDRAWAL_REJECTED and its amount and fee return to available, in the same transaction).
// The partial index serves the deployment-wide rolling hour of WITHDRAWALS_HOURLY_LIMIT_MICROS; the per-user
// rolling day reads operations_user_idx (user_id, created_at).
export class Migration20261129010000_withdrawal_controls extends Migration {
  override name = 'Migration20261129010000_withdrawal_controls';

  override up(): void {
    this.addSql(`
      alter table operations
        add column fee_micros bigint not null default 0 check (fee_micros >= 0),
        add constraint operations_fee_check check (kind = 'withdraw' or fee_micros = 0),
        drop constraint operations_pending_reason_check,
        add constraint operations_pending_reason_check check (pending_reason in (
          'receipt_missing', 'needs_review', 'confirmations', 'mempool', 'queued', 'nonce_gap', 'fee_cap', 'hot_wallet_funds', 'gas',
          'token_paused', 'hot_wallet_blocked', 'review'));`);
    this.addSql(`create index operations_withdrawals_created_idx on operations (created_at) where kind = 'withdraw';`);
    this.addSql(`
      create table withdrawal_reviews (
        operation_id uuid primary key references operations (id),
        causes text[] not null check (cardinality(causes) between 1 and 2 and causes <@ array['above_review_threshold', 'hourly_limit']),
        held_at timestamptz not null default now(),
        decision text check (decision in ('approved', 'rejected')),
        reason text check (length(reason) between 1 and 500),
        operator text,
        decided_at timestamptz,
        check ((decision is null) = (decided_at is null) and (decision is null) = (operator is null)),
        check (decision is distinct from 'rejected' or reason is not null)
      );`);
    this.addSql(`create index withdrawal_reviews_open_idx on withdrawal_reviews (held_at) where decision is null;`);
    this.addSql(`create index withdrawal_reviews_decided_idx on withdrawal_reviews (decision, decided_at) where decision is not null;`);
  }

  override down(): void {
    this.addSql('drop table withdrawal_reviews;');
    this.addSql('drop index operations_withdrawals_created_idx;');
    this.addSql(`
      alter table operations
        drop constraint operations_pending_reason_check,
        add constraint operations_pending_reason_check check (pending_reason in (
          'receipt_missing', 'needs_review', 'confirmations', 'mempool', 'queued', 'nonce_gap', 'fee_cap', 'hot_wallet_funds', 'gas',
          'token_paused', 'hot_wallet_blocked')),
        drop constraint operations_fee_check,
        drop column fee_micros;`);
  }
}
