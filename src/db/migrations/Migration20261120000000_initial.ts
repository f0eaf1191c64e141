import { Migration } from '@mikro-orm/migrations';

export class Migration20261120000000_initial extends Migration {
  override name = 'Migration20261120000000_initial';

  override up(): void {
    this.addSql(`
      create table worker_heartbeats (
        worker_id text primary key,
        hostname text not null,
        pid integer not null,
        started_at timestamptz not null,
        last_seen_at timestamptz not null,
        jobs_processed bigint not null default 0 check (jobs_processed >= 0)
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists worker_heartbeats;');
  }
}
