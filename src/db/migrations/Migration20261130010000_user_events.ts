import { Migration } from '@mikro-orm/migrations';

// The user channel's durable event log (docs/user-channel.md; spec/asyncapi.yaml "User channel").
//
// user_events holds, per user, every change to the account as a numbered event (seq 1, 2, 3... per user, no
// gap); user_event_heads holds each user's last seq. The events are written by triggers, so each is recorded
// in the SAME transaction and the SAME statement as the change that causes it: no statement and no round trip
// is added to any path (the fill path's count is pinned by src/domain/rfq/fill-path.db.test.ts). The triggers
// are statement-level with transition tables and set-based, so a contest payout to 200,000 entries is a few
// set statements, not 200,000 function calls.
//
// Ordering: user_events_append takes the user's head row lock (upsert) until the transaction ends, so two
// transactions writing events of one user commit in seq order: a reader that sees seq n has seen every seq < n.
// Heads are locked in user_id order within one call; balance events come after the accounts' row locks the
// ledger takes (in id order) in the same statement.
//
// Kinds and payloads (amounts in micros as decimal strings, as the HTTP API's balances and operations):
//   balance   ledger_entries insert: the user's available, reserved and app-token balances after the statement
//   operation operations insert, or an update changing status, pending_reason, tx_hash or failure_code
//   rfq       rfqs insert (created), an update changing status (filled, expired, cancelled); rfq_quotes insert (quoted)
//   position  positions insert (opened) and an update leaving status open (settled: won, lost, voided)
//   contest   contest_entries insert (entry_accepted) and an update setting payout (resolved: rank, payout)
// Retention: rows older than USER_EVENTS_RETENTION_MS are deleted by the prune job (at_ms index); the heads stay.
export class Migration20261130010000_user_events extends Migration {
  override name = 'Migration20261130010000_user_events';

  override up(): void {
    this.addSql(`
      create table user_event_heads (
        user_id uuid primary key references users (id),
        seq bigint not null check (seq > 0)
      );
    `);
    this.addSql(`
      create table user_events (
        user_id uuid not null,
        seq bigint not null check (seq > 0),
        kind text not null check (kind in ('balance', 'operation', 'rfq', 'position', 'contest')),
        at_ms bigint not null,
        payload jsonb not null,
        primary key (user_id, seq)
      );
    `);
    this.addSql('create index user_events_at_idx on user_events (at_ms);');
    this.addSql(`
      create function user_events_append(p_users uuid[], p_kinds text[], p_payloads jsonb[]) returns void language sql as $$
        with ev as (
          select u.user_id, u.kind, u.payload,
                 row_number() over (partition by u.user_id order by u.ord) as rn,
                 count(*) over (partition by u.user_id) as n
          from unnest(p_users, p_kinds, p_payloads) with ordinality as u (user_id, kind, payload, ord)
          where u.user_id is not null
        ), heads as (
          insert into user_event_heads as h (user_id, seq)
          select user_id, max(n) from ev group by user_id order by user_id
          on conflict (user_id) do update set seq = h.seq + excluded.seq
          returning h.user_id, h.seq
        )
        insert into user_events (user_id, seq, kind, at_ms, payload)
        select ev.user_id, heads.seq - ev.n + ev.rn, ev.kind, (extract(epoch from clock_timestamp()) * 1000)::bigint, ev.payload
        from ev join heads using (user_id)
      $$;
    `);
    this.addSql(`
      create function user_events_on_ledger() returns trigger language plpgsql as $$
      begin
        perform user_events_append(array_agg(b.user_id order by b.user_id), array_agg('balance'::text order by b.user_id), array_agg(b.payload order by b.user_id))
        from (
          select a.user_id, jsonb_build_object(
            'available_micros', coalesce(sum(a.balance) filter (where a.kind = 'user_available'), 0)::text,
            'reserved_micros', coalesce(sum(a.balance) filter (where a.kind = 'user_reserved'), 0)::text,
            'app_token_micros', coalesce(sum(a.balance) filter (where a.kind = 'user_app_token'), 0)::text) as payload
          from ledger_accounts a
          where a.user_id in (select la.user_id from new_entries e join ledger_accounts la on la.id = e.account_id where la.user_id is not null)
          group by a.user_id
        ) b
        having count(*) > 0;
        return null;
      end $$;
    `);
    this.addSql(`create trigger ledger_entries_user_events after insert on ledger_entries referencing new table as new_entries
      for each statement execute function user_events_on_ledger();`);
    this.addSql(`
      create function user_events_operation_payload(o operations) returns jsonb language sql immutable as $$
        select jsonb_build_object('operation_id', o.id, 'kind', o.kind, 'status', o.status, 'amount_micros', o.amount::text,
          'fee_micros', o.fee_micros::text, 'tx_hash', o.tx_hash, 'destination_address', o.destination_address,
          'pending_reason', o.pending_reason, 'failure_code', o.failure_code)
      $$;
    `);
    this.addSql(`
      create function user_events_on_operations() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform user_events_append(array_agg(n.user_id order by n.created_at, n.id), array_agg('operation'::text order by n.created_at, n.id),
            array_agg(user_events_operation_payload(n) order by n.created_at, n.id))
          from new_rows n having count(*) > 0;
        else
          perform user_events_append(array_agg(n.user_id order by n.id), array_agg('operation'::text order by n.id), array_agg(user_events_operation_payload(n) order by n.id))
          from new_rows n join old_rows o using (id)
          where (n.status, n.pending_reason, n.tx_hash, n.failure_code) is distinct from (o.status, o.pending_reason, o.tx_hash, o.failure_code)
          having count(*) > 0;
        end if;
        return null;
      end $$;
    `);
    this.addSql(`create trigger operations_user_events_insert after insert on operations referencing new table as new_rows
      for each statement execute function user_events_on_operations();`);
    this
      .addSql(`create trigger operations_user_events_update after update on operations referencing old table as old_rows new table as new_rows
      for each statement execute function user_events_on_operations();`);
    this.addSql(`
      create function user_events_rfq_payload(r rfqs, event text) returns jsonb language sql immutable as $$
        select jsonb_build_object('rfq_id', r.id, 'event', event, 'status', r.status, 'stake_micros', r.stake::text,
          'filled_stake_micros', r.filled_stake::text, 'payout_micros', r.payout::text, 'odds_bps', r.odds_bps,
          'position_id', r.position_id, 'close_reason', r.close_reason)
      $$;
    `);
    this.addSql(`
      create function user_events_on_rfqs() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform user_events_append(array_agg(n.taker_user_id order by n.id), array_agg('rfq'::text order by n.id), array_agg(user_events_rfq_payload(n, 'created'::text) order by n.id))
          from new_rows n having count(*) > 0;
        else
          perform user_events_append(array_agg(n.taker_user_id order by n.id), array_agg('rfq'::text order by n.id), array_agg(user_events_rfq_payload(n, n.status) order by n.id))
          from new_rows n join old_rows o using (id)
          where n.status is distinct from o.status
          having count(*) > 0;
        end if;
        return null;
      end $$;
    `);
    this.addSql(`create trigger rfqs_user_events_insert after insert on rfqs referencing new table as new_rows
      for each statement execute function user_events_on_rfqs();`);
    this.addSql(`create trigger rfqs_user_events_update after update on rfqs referencing old table as old_rows new table as new_rows
      for each statement execute function user_events_on_rfqs();`);
    this.addSql(`
      create function user_events_on_quotes() returns trigger language plpgsql as $$
      begin
        perform user_events_append(array_agg(r.taker_user_id order by r.id), array_agg('rfq'::text order by r.id), array_agg(user_events_rfq_payload(r, 'quoted'::text) order by r.id))
        from rfqs r where r.id in (select q.rfq_id from new_rows q) and r.status = 'open'
        having count(*) > 0;
        return null;
      end $$;
    `);
    this.addSql(`create trigger rfq_quotes_user_events after insert on rfq_quotes referencing new table as new_rows
      for each statement execute function user_events_on_quotes();`);
    this.addSql(`
      create function user_events_position_payload(p positions, event text) returns jsonb language sql immutable as $$
        select jsonb_build_object('position_id', p.id, 'rfq_id', p.rfq_id, 'event', event, 'status', p.status,
          'stake_micros', p.stake::text, 'payout_micros', p.payout::text, 'odds_bps', p.odds_bps, 'pnl_micros', p.pnl::text)
      $$;
    `);
    this.addSql(`
      create function user_events_on_positions() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform user_events_append(array_agg(n.taker_user_id order by n.id), array_agg('position'::text order by n.id),
            array_agg(user_events_position_payload(n, 'opened'::text) order by n.id))
          from new_rows n having count(*) > 0;
        else
          perform user_events_append(array_agg(n.taker_user_id order by n.taker_user_id, n.id), array_agg('position'::text order by n.taker_user_id, n.id),
            array_agg(user_events_position_payload(n, 'settled'::text) order by n.taker_user_id, n.id))
          from new_rows n join old_rows o using (id)
          where o.status = 'open' and n.status <> 'open'
          having count(*) > 0;
        end if;
        return null;
      end $$;
    `);
    this.addSql(`create trigger positions_user_events_insert after insert on positions referencing new table as new_rows
      for each statement execute function user_events_on_positions();`);
    this
      .addSql(`create trigger positions_user_events_update after update on positions referencing old table as old_rows new table as new_rows
      for each statement execute function user_events_on_positions();`);
    this.addSql(`
      create function user_events_on_entries() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform user_events_append(array_agg(n.user_id order by n.user_id, n.id), array_agg('contest'::text order by n.user_id, n.id),
            array_agg(jsonb_build_object('contest_id', n.contest_id, 'entry_id', n.id, 'event', 'entry_accepted', 'rank', null, 'payout_micros', null, 'score', n.score)
              order by n.user_id, n.id))
          from new_rows n having count(*) > 0;
        else
          perform user_events_append(array_agg(n.user_id order by n.user_id, n.id), array_agg('contest'::text order by n.user_id, n.id),
            array_agg(jsonb_build_object('contest_id', n.contest_id, 'entry_id', n.id, 'event', 'resolved', 'rank', n.rank, 'payout_micros', n.payout::text, 'score', n.score)
              order by n.user_id, n.id))
          from new_rows n join old_rows o using (id)
          where o.payout is null and n.payout is not null
          having count(*) > 0;
        end if;
        return null;
      end $$;
    `);
    this.addSql(`create trigger contest_entries_user_events_insert after insert on contest_entries referencing new table as new_rows
      for each statement execute function user_events_on_entries();`);
    this
      .addSql(`create trigger contest_entries_user_events_update after update on contest_entries referencing old table as old_rows new table as new_rows
      for each statement execute function user_events_on_entries();`);
  }

  override down(): void {
    for (const [t, names] of [
      ['contest_entries', ['contest_entries_user_events_insert', 'contest_entries_user_events_update']],
      ['positions', ['positions_user_events_insert', 'positions_user_events_update']],
      ['rfq_quotes', ['rfq_quotes_user_events']],
      ['rfqs', ['rfqs_user_events_insert', 'rfqs_user_events_update']],
      ['operations', ['operations_user_events_insert', 'operations_user_events_update']],
      ['ledger_entries', ['ledger_entries_user_events']],
    ] as const) {
      for (const n of names) this.addSql(`drop trigger if exists ${n} on ${t};`);
    }
    this.addSql(
      'drop function if exists user_events_on_entries(), user_events_on_positions(), user_events_on_quotes(), user_events_on_rfqs();',
    );
    this.addSql('drop function if exists user_events_on_operations(), user_events_on_ledger();');
    this.addSql(
      'drop function if exists user_events_position_payload(positions, text), user_events_rfq_payload(rfqs, text), user_events_operation_payload(operations);',
    );
    this.addSql('drop function if exists user_events_append(uuid[], text[], jsonb[]);');
    this.addSql('drop table if exists user_events;');
    this.addSql('drop table if exists user_event_heads;');
  }
}
