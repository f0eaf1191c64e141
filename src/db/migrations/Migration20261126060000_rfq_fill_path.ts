import { Migration } from '@mikro-orm/migrations';

// The RFQ fill path in fewer round trips (docs/fill-path.md, "The statement budget of one fill"): two
// PL/pgSQL functions, each one client statement that runs several statements inside, every one with its
// own snapshot (a volatile function under READ COMMITTED takes a fresh snapshot per statement). A single
// statement could not do either: its snapshot is taken before it waits for its first lock.
//
// rfq_create: the taker's ledger accounts locked (id order), THEN the open RFQs counted (so
// RFQ_MAX_OPEN_PER_USER is exact under concurrent creates), the RFQ inserted, the stake reserved.
// Answers 'ok', 'no_accounts' (the caller creates them and calls again), 'not_inserted' (the nonce was used
// or the limit is reached: the caller tells them apart off the common path) or 'insufficient_balance'
// (the RFQ row was inserted: the caller throws and the transaction rolls back).
//
// rfq_lock_for_close: the RFQ locked FOR UPDATE, THEN its quotes locked FOR UPDATE, best first (so a
// quote committed while the close waited for the RFQ row is seen and closed with it), with each quoting
// maker's ledger accounts and the taker's as read WITHOUT a lock: the close's write statement locks the
// accounts it posts to, and the balance CHECK of ledger_accounts guards what the unlocked read assumed.
// One row: the RFQ, the taker's accounts and the quotes as JSON (int8 as text, so no amount is rounded
// through a JSON number); no row when there is no such RFQ; no quotes unless it is open.
export class Migration20261126060000_rfq_fill_path extends Migration {
  override name = 'Migration20261126060000_rfq_fill_path';

  override up(): void {
    this.addSql(`
      create function rfq_create(
        p_id uuid, p_taker_user_id uuid, p_taker_address text, p_nonce bigint, p_order_hash text, p_signature text, p_legs jsonb,
        p_stake bigint, p_min_odds_bps integer, p_order_type text, p_fill_mode text, p_deadline_ms bigint, p_quote_deadline_ms bigint,
        p_expires_at_ms bigint, p_due_at_ms bigint, p_created_at_ms bigint, p_idempotency_key uuid, p_max_open integer, p_reserve_tx uuid
      ) returns text language plpgsql as $$
      declare
        a record;
        v_available bigint;
        v_available_id bigint;
        v_reserved_id bigint;
      begin
        for a in select id, kind, balance from ledger_accounts
                  where user_id = p_taker_user_id and kind in ('user_available', 'user_reserved') order by id for update loop
          if a.kind = 'user_available' then v_available_id := a.id; v_available := a.balance; else v_reserved_id := a.id; end if;
        end loop;
        if v_available_id is null or v_reserved_id is null then return 'no_accounts'; end if;
        if (select count(*) from rfqs where taker_user_id = p_taker_user_id and status = 'open') >= p_max_open then return 'not_inserted'; end if;
        insert into rfqs (id, taker_user_id, taker_address, nonce, order_hash, signature, legs, stake, min_odds_bps, order_type, fill_mode,
                          deadline_ms, quote_deadline_ms, expires_at_ms, due_at_ms, created_at_ms, idempotency_key)
          values (p_id, p_taker_user_id, p_taker_address, p_nonce, p_order_hash, p_signature, p_legs, p_stake, p_min_odds_bps, p_order_type,
                  p_fill_mode, p_deadline_ms, p_quote_deadline_ms, p_expires_at_ms, p_due_at_ms, p_created_at_ms, p_idempotency_key)
          on conflict on constraint rfqs_taker_nonce_key do nothing;
        if not found then return 'not_inserted'; end if;
        if v_available < p_stake then return 'insufficient_balance'; end if;
        insert into ledger_transactions (id, kind, reference, idempotency_key) values (p_reserve_tx, 'rfq_reserve', p_id::text, 'rfq:' || p_id);
        insert into ledger_entries (transaction_id, account_id, amount)
          values (p_reserve_tx, v_available_id, -p_stake), (p_reserve_tx, v_reserved_id, p_stake);
        return 'ok';
      end $$;
    `);
    this.addSql(`
      create function rfq_lock_for_close(p_rfq uuid) returns table (rfq_row jsonb, taker_accounts jsonb, quote_rows jsonb)
      language plpgsql as $$
      declare
        v_rfq jsonb;
      begin
        select to_jsonb(x) into v_rfq from (
          select r.id, r.taker_user_id, r.taker_address, r.nonce::text as nonce, r.order_hash, r.signature, r.legs, r.stake::text as stake,
                 r.min_odds_bps, r.order_type, r.fill_mode, r.status, r.deadline_ms::text as deadline_ms,
                 r.quote_deadline_ms::text as quote_deadline_ms, r.expires_at_ms::text as expires_at_ms, r.created_at_ms::text as created_at_ms,
                 r.closed_at_ms::text as closed_at_ms, r.filled_stake::text as filled_stake, r.payout::text as payout, r.odds_bps,
                 r.position_id, r.close_reason, r.idempotency_key
            from rfqs r where r.id = p_rfq for update) x;
        if v_rfq is null then return; end if;
        if v_rfq->>'status' <> 'open' then
          return query select v_rfq, '[]'::jsonb, '[]'::jsonb;
          return;
        end if;
        return query select v_rfq,
          (select coalesce(jsonb_agg(jsonb_build_object('id', a.id::text, 'kind', a.kind, 'balance', a.balance::text)), '[]'::jsonb)
             from ledger_accounts a where a.user_id = (v_rfq->>'taker_user_id')::uuid and a.kind in ('user_available', 'user_reserved')),
          (select coalesce(jsonb_agg(to_jsonb(q) order by q.odds_bps desc, q.received_at_ms::bigint, q.id), '[]'::jsonb) from (
             select q.id, q.rfq_id, q.maker_address, q.maker_user_id, q.client_quote_id, q.odds_bps, q.max_fill::text as max_fill,
                    q.valid_until_ms::text as valid_until_ms, q.signature, q.status, q.reason, q.filled_stake::text as filled_stake,
                    q.received_at_ms::text as received_at_ms,
                    av.id::text as maker_available_id, av.balance::text as maker_available, rs.id::text as maker_reserved_id,
                    exists (select 1 from market_makers m where lower(m.wallet_address) = q.maker_address and m.removed_at is not null) as maker_removed
               from rfq_quotes q
               left join ledger_accounts av on av.user_id = q.maker_user_id and av.kind = 'user_available'
               left join ledger_accounts rs on rs.user_id = q.maker_user_id and rs.kind = 'user_reserved'
              where q.rfq_id = p_rfq
              order by q.odds_bps desc, q.received_at_ms, q.id
              for update of q) q);
      end $$;
    `);
  }

  override down(): void {
    this.addSql('drop function if exists rfq_lock_for_close(uuid);');
    this.addSql(
      'drop function if exists rfq_create(uuid, uuid, text, bigint, text, text, jsonb, bigint, integer, text, text, bigint, bigint, bigint, bigint, bigint, uuid, integer, uuid);',
    );
  }
}
