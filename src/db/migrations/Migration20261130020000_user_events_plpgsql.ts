import { Migration } from '@mikro-orm/migrations';

// The user event log's append (Migration20261130010000_user_events) in PL/pgSQL, with a path of its own for one event.
//
// Why: PostgreSQL (15, 16, 17) plans the statement of a non-inlined LANGUAGE sql function anew at every call,
// and user_events_append is called by every trigger of the log: six times per best-mode fill. PL/pgSQL keeps its
// statements' plans for the session. Measured in-process on PostgreSQL 15 (create + one quote + close, 25-fill
// rounds interleaved, the backends' CPU from /proc): the log cost 3.4 ms of PostgreSQL CPU per fill as SQL,
// 1.6 ms as PL/pgSQL, 1.0-1.3 ms with the one-event path (docs/performance.md, "User channel").
//
// One event (five of a fill's six: created, quoted, a reserve's balance, filled, opened) takes the head's row
// lock and writes its event in two plain statements. Several events keep the set-based statement, which locks
// the heads in user_id order. What is written, and the order and locks it promises, do not change.
const APPEND_SET = `
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
  from ev join heads using (user_id)`;

export class Migration20261130020000_user_events_plpgsql extends Migration {
  override name = 'Migration20261130020000_user_events_plpgsql';

  override up(): void {
    this.addSql(`
      create or replace function user_events_append(p_users uuid[], p_kinds text[], p_payloads jsonb[]) returns void language plpgsql as $$
      declare
        s bigint;
      begin
        if cardinality(p_users) = 1 then
          if p_users[1] is null then
            return;
          end if;
          insert into user_event_heads as h (user_id, seq) values (p_users[1], 1)
            on conflict (user_id) do update set seq = h.seq + 1
            returning h.seq into s;
          insert into user_events (user_id, seq, kind, at_ms, payload)
            values (p_users[1], s, p_kinds[1], (extract(epoch from clock_timestamp()) * 1000)::bigint, p_payloads[1]);
          return;
        end if;
        ${APPEND_SET.trim()};
      end $$;
    `);
  }

  override down(): void {
    this.addSql(`
      create or replace function user_events_append(p_users uuid[], p_kinds text[], p_payloads jsonb[]) returns void language sql as $$
        ${APPEND_SET.trim()}
      $$;
    `);
  }
}
