// A taker's RFQ (docs/trading.md, "The RFQ lifecycle"): checks in the order schema (done by the spec) -> free checks
// -> database lookups -> signature -> writes; the RFQ row and the stake's reservation commit together in
// the caller's transaction (the idempotency key's), and the `rfq.open` event is published after commit.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { int8ToNumber } from '../../db/int8.js';
import { rfqRepository } from '../../db/repositories/rfq.repository.js';
import { db } from '../../db/schema.js';
import { Conflict, NotFound, Unprocessable } from '../errors.js';
import { InsufficientBalance, lockUserBalances, planPostings, type Posting } from '../ledger/ledger.js';
import type { PostingRows } from '../../db/repositories/ledger.repository.js';
import { bettingClosesAt } from '../markets/windows.js';
import { MAX_KNOWN_WINDOWS, nowOf, type RfqDeps, type RfqWindowInfo } from './deps.js';
import type { RfqEvent } from './events.js';
import { loadRfq } from './queries.js';
import { rfqFrame, type RfqLegInfo, type RfqWithQuotes } from './records.js';
import { rfqFromRow } from './rows.js';
import { rfqDomainOf, verifyOrderSignature, type RfqOrderJson } from './typed-data.js';
import { assertOrderAcceptable, type FillMode } from './validate.js';

export interface CreateRfqInput {
  userId: string;
  /** The session's wallet: order.taker must equal it (422 TAKER_MISMATCH). */
  sessionAddress: string;
  order: RfqOrderJson;
  signature: string;
  fillMode: FillMode;
  idempotencyKey: string;
}

export interface RfqWrite {
  rfq: RfqWithQuotes;
  /** Publish after commit (src/trading/rfq-events.ts). */
  events: RfqEvent[];
}

/**
 * The legs with their windows, in the signed order; 404 MARKET_NOT_FOUND for a leg that is no RFQ window.
 * Windows already known to this process (deps.windows) are not looked up again: their rows never change.
 */
async function legWindows(tx: Em, deps: RfqDeps, order: RfqOrderJson): Promise<RfqLegInfo[]> {
  const known = deps.windows ?? new Map<number, RfqWindowInfo>();
  const unknown = [...new Set(order.legs.map((l) => l.market_id))].filter((id) => !known.has(id));
  if (unknown.length) {
    if (known.size + unknown.length > MAX_KNOWN_WINDOWS) known.clear();
    for (const r of await rfqRepository(db(tx)).windows(unknown)) {
      known.set(int8ToNumber(r.market_id), { asset: r.asset, durationSecs: r.duration_secs, startAtMs: int8ToNumber(r.start_at_ms) });
    }
  }
  const missing = order.legs.map((l, i) => [l, i] as const).filter(([l]) => !known.has(l.market_id));
  if (missing.length) {
    throw new NotFound(
      'MARKET_NOT_FOUND',
      `no RFQ market window with ${missing.map(([l, i]) => `market_id ${l.market_id} (leg ${i})`).join(', ')}; take market_id from GET /v1/markets/current or /v1/markets/lookup`,
    );
  }
  return order.legs.map((l) => {
    const w = known.get(l.market_id)!;
    return {
      market_id: l.market_id,
      asset: w.asset,
      duration_secs: w.durationSecs,
      window_start_ms: w.startAtMs,
      betting_closes_at_ms: bettingClosesAt(w.startAtMs, w.durationSecs, deps.settings.bettingCloseBufferMs),
      direction: l.direction,
    };
  });
}

export async function createRfq(tx: Em, deps: RfqDeps, input: CreateRfqInput): Promise<RfqWrite> {
  const { settings } = deps;
  const now = nowOf(deps);
  const { order } = input;

  // Free checks.
  assertOrderAcceptable(order, input.fillMode, settings, now);
  const taker = order.taker.toLowerCase();
  if (taker !== input.sessionAddress.toLowerCase()) {
    throw new Unprocessable(
      'TAKER_MISMATCH',
      `order.taker ${order.taker} is not the wallet of this session (${input.sessionAddress}); sign with the session wallet`,
      [{ in: 'body', path: '/order/taker', message: 'must be the session wallet' }],
    );
  }

  // Lookups.
  const legs = await legWindows(tx, deps, order);
  const quoteDeadlineMs = now + settings.quoteWindowMs;
  const firstClose = Math.min(...legs.map((l) => l.betting_closes_at_ms));
  const mustStayOpenUntil = input.fillMode === 'best' ? quoteDeadlineMs : now;
  if (firstClose <= mustStayOpenUntil) {
    const leg = legs.findIndex((l) => l.betting_closes_at_ms === firstClose);
    throw new Conflict(
      'BETTING_CLOSED',
      `betting on market ${legs[leg]!.market_id} (leg ${leg}) closes at ${firstClose}, before this RFQ could fill; trade the next window`,
      { market_id: legs[leg]!.market_id, betting_closes_at_ms: firstClose },
    );
  }

  // Signature (about 2 ms of CPU: after every cheaper check).
  const domain = rfqDomainOf(settings);
  const v = verifyOrderSignature(domain, order, input.signature);
  if (!v.ok) {
    const why =
      v.reason === 'signer_mismatch'
        ? `it does not recover to order.taker (a field differs from what was signed, or it was signed for another domain: this deployment's is ${domain.name}/${domain.version}/${domain.chainId} with salt ${domain.salt}; GET /v1/rfq/typed-data)`
        : v.reason === 'malformed_signature'
          ? 'it is not a valid secp256k1 signature (0x + 130 hex, v in 27, 28, 0, 1, s at most n/2 as EIP-2 requires)'
          : 'the order cannot be encoded as the typed data';
    throw new Unprocessable('INVALID_SIGNATURE', `the order signature is not valid: ${why}`, [{ in: 'body', path: '/signature', message: why }]);
  }

  const repo = rfqRepository(db(tx));
  const earlier = async (): Promise<RfqWrite | null> => {
    const e = await repo.byNonce(taker, order.nonce);
    if (!e) return null;
    // The same request retried (a crash between commit and the key's outcome): that RFQ, nothing new.
    if (e.idempotency_key === input.idempotencyKey && e.order_hash === v.digest) return { rfq: (await loadRfq(tx, e.id))!, events: [] };
    throw new Conflict('NONCE_REUSED', `nonce ${order.nonce} was already used by another order of ${order.taker}; sign the order with a new nonce`, {
      rfq_id: e.id,
    });
  };
  // A nonce already used is found by the insert below (ON CONFLICT), then told apart by earlier(): it costs
  // no lookup on the common path, and the order of the answers is the same (NONCE_REUSED before the limit).

  // The taker's ledger accounts, locked: creates of one taker run one at a time from here (the insert's
  // open-RFQ count, RFQ_MAX_OPEN_PER_USER, is exact), and the reservation posts to them without locking again. A taker with no accounts
  // yet has no money; the user row is checked (404 if gone) and the accounts created.
  const kinds = ['user_available', 'user_reserved'] as const;
  let locked = await lockUserBalances(tx, [input.userId], kinds, { createMissing: false });
  if (locked.size < kinds.length) {
    if (!(await repo.lockUser(input.userId))) throw new NotFound('USER_NOT_FOUND', 'the session user no longer exists');
    locked = await lockUserBalances(tx, [input.userId], kinds);
  }

  const id = randomUUID();
  const expiresAtMs = Math.min(order.deadline_ms, firstClose);
  const stake = BigInt(order.stake_micros);
  // The stake's reservation, checked against the locked balance here and written by the insert's statement.
  // A short balance is answered after the insert's own refusals (NONCE_REUSED and OPEN_RFQ_LIMIT come first).
  const reserve: Posting = {
    kind: 'rfq_reserve',
    reference: id,
    idempotencyKey: `rfq:${id}`,
    entries: [
      { account: { userId: input.userId, kind: 'user_available' }, amount: -stake },
      { account: { userId: input.userId, kind: 'user_reserved' }, amount: stake },
    ],
  };
  let ledger: PostingRows | null = null;
  let short: InsufficientBalance | null = null;
  try {
    ledger = planPostings([reserve], locked).rows;
  } catch (err) {
    if (!(err instanceof InsufficientBalance)) throw err;
    short = err;
  }
  const inserted = await repo.insert(
    {
      id,
      takerUserId: input.userId,
      takerAddress: taker,
      nonce: order.nonce,
      orderHash: v.digest,
      signature: input.signature.toLowerCase(),
      legs,
      stake,
      minOddsBps: order.min_odds_bps,
      orderType: order.order_type,
      fillMode: input.fillMode,
      deadlineMs: order.deadline_ms,
      quoteDeadlineMs,
      expiresAtMs,
      dueAtMs: input.fillMode === 'best' ? quoteDeadlineMs : expiresAtMs,
      createdAtMs: now,
      idempotencyKey: input.idempotencyKey,
    },
    settings.maxOpenPerUser,
    ledger,
  );
  if (!inserted) {
    // Off the common path: the nonce was used before (or by a concurrent request that committed first), or the limit.
    const again = await earlier();
    if (again) return again;
    const open = await repo.countOpen(input.userId);
    throw new Conflict(
      'OPEN_RFQ_LIMIT',
      `you have ${open} open RFQs, the most allowed (RFQ_MAX_OPEN_PER_USER); wait for one to close or cancel one`,
      { open_rfqs: open, limit: settings.maxOpenPerUser },
    );
  }

  if (short) throw short; // the transaction rolls back: no RFQ
  // What a read would return now: the row as inserted, no quotes yet.
  const rfq: RfqWithQuotes = { rfq: rfqFromRow(inserted, 0), quotes: [] };
  return { rfq, events: [{ topic: 'rfq.open', frame: rfqFrame(rfq.rfq) }] };
}
