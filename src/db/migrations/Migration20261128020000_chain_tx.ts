import { Migration } from '@mikro-orm/migrations';

// One module for every chain transaction (src/domain/settlement/onchain/chain-tx/, docs/settlement.md).
// chain_transactions gains what that module needs to decide without a node: `purpose` (a deposit or withdrawal,
// a sweep step, a nonce-gap filler, a cold-wallet sweep) with `intent_id` naming a filler's or a cold sweep's
// transaction; `gas_limit` (affordability: gas * maxFee + L1 fee); `broadcast_error`, the class of the node's
// last refusal of these bytes (chain-tx/refusals.ts); `unproven_since`, when its nonce was first seen used on
// chain while no receipt was served (after CHAIN_RECEIPT_REVIEW_AFTER_MS it goes to an operator). An index on
// the open (unrecorded) transactions per sender serves "the lowest open nonce" and the open gas cost.
// operations.pending_reason gains the reasons a deposit or withdrawal waits before or while it is sent;
// settlement_resolutions.failure_code carries the code of a refusal found before any signature.
// deposit_addresses gains the sweep's retry state: a sweep that reverts is retried with backoff
// (sweep_retry_at) a bounded number of times (sweep_failures), then parked with a reason; no top-up is sent
// for a parked address until an operator unparks it.
export class Migration20261128020000_chain_tx extends Migration {
  override name = 'Migration20261128020000_chain_tx';

  override up(): void {
    this.addSql(`
      alter table chain_transactions
        add column purpose text not null default 'operation' check (purpose in ('operation', 'sweep', 'filler', 'cold_sweep')),
        add column intent_id uuid,
        add column gas_limit bigint not null default 150000 check (gas_limit > 0),
        add column broadcast_error text check (broadcast_error in ('nonce_too_low', 'underpriced', 'insufficient_funds', 'other')),
        add column unproven_since timestamptz;`);
    this.addSql(`update chain_transactions set purpose = 'sweep' where sweep_id is not null;`);
    this.addSql('alter table chain_transactions drop constraint chain_transactions_owner_check;');
    this.addSql(`
      alter table chain_transactions add constraint chain_transactions_owner_check check (
        (operation_id is not null) = (purpose = 'operation')
        and (sweep_id is not null) = (purpose = 'sweep')
        and (intent_id is not null) = (purpose in ('filler', 'cold_sweep')));`);
    this.addSql('alter table chain_transactions add constraint chain_transactions_intent_attempt_key unique (intent_id, attempt);');
    this.addSql(
      'create index chain_transactions_open_idx on chain_transactions (chain_id, from_address, nonce) where receipt_status is null;',
    );
    this.addSql('alter table operations drop constraint operations_pending_reason_check;');
    this.addSql(`
      alter table operations add constraint operations_pending_reason_check check (pending_reason in (
        'receipt_missing', 'needs_review', 'confirmations', 'mempool', 'queued', 'nonce_gap', 'fee_cap', 'hot_wallet_funds', 'gas',
        'token_paused', 'hot_wallet_blocked'));`);
    // A deposit or withdrawal the chain would refuse (a blacklisted destination or wallet, a pull deposit its wallet
    // no longer covers) fails before any transaction is signed: recorded as the service's own resolution.
    this.addSql(`alter table settlement_resolutions add column failure_code text check (failure_code ~ '^[A-Z][A-Z0-9_]*$');`);
    this.addSql(`
      alter table deposit_addresses
        add column sweep_failures integer not null default 0 check (sweep_failures >= 0),
        add column sweep_retry_at timestamptz,
        add column parked_reason text,
        add column parked_at timestamptz;`);
  }

  override down(): void {
    this.addSql('alter table settlement_resolutions drop column failure_code;');
    this.addSql(
      'alter table deposit_addresses drop column sweep_failures, drop column sweep_retry_at, drop column parked_reason, drop column parked_at;',
    );
    this.addSql('alter table operations drop constraint operations_pending_reason_check;');
    this.addSql(
      `alter table operations add constraint operations_pending_reason_check check (pending_reason in ('receipt_missing', 'needs_review'));`,
    );
    this.addSql('drop index chain_transactions_open_idx;');
    this.addSql('alter table chain_transactions drop constraint chain_transactions_intent_attempt_key;');
    this.addSql('alter table chain_transactions drop constraint chain_transactions_owner_check;');
    this.addSql("delete from chain_transactions where purpose in ('filler', 'cold_sweep');");
    this.addSql(
      'alter table chain_transactions add constraint chain_transactions_owner_check check (num_nonnulls(operation_id, sweep_id) = 1);',
    );
    this.addSql(
      'alter table chain_transactions drop column purpose, drop column intent_id, drop column gas_limit, drop column broadcast_error, drop column unproven_since;',
    );
  }
}
