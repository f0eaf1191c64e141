import { Migration } from '@mikro-orm/migrations';

// What the workers' `reconcile-chain` job last read from the chain (src/domain/settlement/onchain/observe-chain.ts;
// docs/settlement.md, "Reconciliation and chain status"): one row per chain, replaced on every run. API processes
// serve GET /v1/admin/status and the crfq_chain_* / settlement_* gauges from it and never read the chain for them.
export class Migration20261129030000_chain_observations extends Migration {
  override name = 'Migration20261129030000_chain_observations';

  override up(): void {
    this.addSql(`
      create table chain_observations (
        chain_id integer primary key,
        observed_at timestamptz not null default now(),
        figures jsonb not null
      );
    `);
  }

  override down(): void {
    this.addSql('drop table chain_observations;');
  }
}
