import { Migration } from '@mikro-orm/migrations';

// The cold wallet and the external signer (docs/operations.md, "Custody"). cold_sweeps: one row per move of
// the settlement wallet's USDC above HOT_WALLET_MAX_MICROS to COLD_WALLET_ADDRESS; its transaction is a
// chain_transactions row with purpose 'cold_sweep' and intent_id = cold_sweeps.id. At most one sweep is open per
// chain (the partial unique index): a second worker cannot open another while one is in flight, and the amount
// is fixed when the row is written, so a sweep moves exactly that amount or nothing (`cancelled`: refused before
// any signature; `reverted`: mined and reverted). wait_reason is why an open sweep waits (as an operation's
// pending_reason). operations.pending_reason gains `signer`: the external signer (SETTLEMENT_SIGNER_URL) did not
// answer or refused; the operation waits, it never fails for it.
export class Migration20261129020000_cold_wallet_signer extends Migration {
  override name = 'Migration20261129020000_cold_wallet_signer';

  override up(): void {
    this.addSql(`
      create table cold_sweeps (
        id uuid primary key,
        chain_id integer not null,
        to_address text not null,
        amount bigint not null check (amount > 0),
        status text not null default 'open' check (status in ('open', 'done', 'reverted', 'cancelled')),
        wait_reason text,
        reason text,
        tx_hash text,
        created_at timestamptz not null default now(),
        finished_at timestamptz,
        check ((status = 'open') = (finished_at is null)),
        check (status <> 'done' or tx_hash is not null)
      );`);
    this.addSql(`create unique index cold_sweeps_one_open_key on cold_sweeps (chain_id) where status = 'open';`);
    this.addSql(`
      alter table operations
        drop constraint operations_pending_reason_check,
        add constraint operations_pending_reason_check check (pending_reason in (
          'receipt_missing', 'needs_review', 'confirmations', 'mempool', 'queued', 'nonce_gap', 'fee_cap', 'hot_wallet_funds', 'gas',
          'token_paused', 'hot_wallet_blocked', 'review', 'signer'));`);
  }

  override down(): void {
    this.addSql("delete from chain_transactions where purpose = 'cold_sweep';");
    this.addSql('drop table cold_sweeps;');
    this.addSql(`
      alter table operations
        drop constraint operations_pending_reason_check,
        add constraint operations_pending_reason_check check (pending_reason in (
          'receipt_missing', 'needs_review', 'confirmations', 'mempool', 'queued', 'nonce_gap', 'fee_cap', 'hot_wallet_funds', 'gas',
          'token_paused', 'hot_wallet_blocked', 'review'));`);
  }
}
