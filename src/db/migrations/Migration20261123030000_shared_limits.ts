import { Migration } from '@mikro-orm/migrations';

// Limits shared by every API process of the PostgreSQL-only deployment (with Redis they live in Redis):
//   rate_limit_counters: fixed-window request counters (src/http/rate-limit-store.ts)
//   ws_connection_slots: open market-maker WebSocket connections per client IP, leased with an expiry that
//                        the owning process renews, so a crashed process does not keep its slots
//                        (src/ws/connection-slots.ts)
export class Migration20261123030000_shared_limits extends Migration {
  override name = 'Migration20261123030000_shared_limits';

  override up(): void {
    this.addSql(`
      create table if not exists rate_limit_counters (
        key text primary key,
        hits integer not null,
        reset_at timestamptz not null
      );
    `);
    this.addSql('create index if not exists rate_limit_counters_reset_at_idx on rate_limit_counters (reset_at);');
    this.addSql(`
      create table if not exists ws_connection_slots (
        ip text not null,
        holder text not null,
        process text not null,
        expires_at timestamptz not null,
        primary key (ip, holder)
      );
    `);
    this.addSql('create index if not exists ws_connection_slots_process_idx on ws_connection_slots (process);');
    this.addSql('create index if not exists ws_connection_slots_expires_at_idx on ws_connection_slots (expires_at);');
  }

  override down(): void {
    this.addSql('drop table if exists ws_connection_slots;');
    this.addSql('drop table if exists rate_limit_counters;');
  }
}
