// A taker's RFQ (docs/trading.md, "The RFQ lifecycle"): checks in the order schema (done by the spec) -> free checks
// -> database lookups -> signature -> writes; the RFQ row and the stake's reservation commit together in
// the caller's transaction (the idempotency key's), and the `rfq.open` event is published after commit.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import { type NewRfqRow } from '../../db/repositories/rfq.repository.js';
import { Conflict, NotFound, Unprocessable } from '../errors.js';
import { InsufficientBalance, lockUserBalances } from '../ledger/ledger.js';
import { bettingClosesAt } from '../markets/windows.js';
import { MAX_KNOWN_WINDOWS, nowOf, type RfqDeps, type RfqWindowInfo } from './deps.js';
import type { RfqEvent } from './events.js';
import { loadRfq } from './queries.js';
import { rfqFrame, type RfqLegInfo, type RfqRecord, type RfqWithQuotes } from './records.js';
import { rfqFromRow } from './rows.js';
import { rfqDomainOf, verifyOrderSignature, type RfqOrderJson, type Verification } from './typed-data.js';
import { assertOrderAcceptable, type FillMode } from './validate.js';
import { repos } from '../../db/repos.js';

export interface CreateRfqInput {
  userId: string;
  /** The session's wallet: order.taker must equal it (422 TAKER_MISMATCH). */
  sessionAddress: string;
  order: RfqOrderJson;
  signature: string;
  fillMode: FillMode;
  idempotencyKey: string;
  /**
   * The signature's check, when the caller ran it before opening the transaction (checkOrderSignature): the
   * recovery's CPU then stays out of the transaction. Its verdict is still answered in the usual order.
   */
  signatureCheck?: Verification;
}

/** The order's signature check, to run before the transaction opens (CreateRfqInput.signatureCheck). */
export function checkOrderSignature(deps: RfqDeps, order: RfqOrderJson, signature: string): Verification {
  return verifyOrderSignature(rfqDomainOf(deps.settings), order, signature);
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
    for (const r of await repos(tx).rfq.windows(unknown)) {
      known.set(r.market_id, { asset: r.asset, durationSecs: r.duration_secs, startAtMs: r.start_at_ms });
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

export async function createRfq(tx: Tx, deps: RfqDeps, input: CreateRfqInput): Promise<RfqWrite> {
  const { settings } = deps;
  const now = nowOf(deps);
  const { order } = input;

  // Free checks.
  assertOrderAcceptable(order, input.fillMode, settings, now);
  const taker = sessionTaker(input);

  // Lookups.
  const legs = await legWindows(tx, deps, order);
  const quoteDeadlineMs = now + settings.quoteWindowMs;
  const firstClose = assertStillOpenable(legs, input.fillMode === 'best' ? quoteDeadlineMs : now);

  // Signature (a native recovery, ~0.2 ms of CPU: after every cheaper check).
  const digest = verifiedOrderDigest(settings, order, input.signature, input.signatureCheck);

  const repo = repos(tx).rfq;
  const earlier = async (): Promise<RfqWrite | null> => {
    const e = await repo.byNonce(taker, order.nonce);
    if (!e) return null;
    // The same request retried (a crash between commit and the key's outcome): that RFQ, nothing new.
    if (e.idempotency_key === input.idempotencyKey && e.order_hash === digest) return { rfq: (await loadRfq(tx, e.id))!, events: [] };
    throw new Conflict(
      'NONCE_REUSED',
      `nonce ${order.nonce} was already used by another order of ${order.taker}; sign the order with a new nonce`,
      {
        rfq_id: e.id,
      },
    );
  };
  // A nonce already used is found by the insert below (ON CONFLICT), then told apart by earlier(): it costs
  // no lookup on the common path, and the order of the answers is the same (NONCE_REUSED before the limit).

  // ONE statement (rfq_create): the taker's ledger accounts locked (creates of one taker run one at a time
  // from there, so the open-RFQ count, RFQ_MAX_OPEN_PER_USER, is exact), the insert, the stake reserved. A
  // taker with no accounts yet has no money: the user row is checked (404 if gone), the accounts created,
  // and the statement runs again.
  const id = randomUUID();
  const row: NewRfqRow = {
    id,
    takerUserId: input.userId,
    takerAddress: taker,
    nonce: order.nonce,
    orderHash: digest,
    signature: input.signature.toLowerCase(),
    legs,
    stake: BigInt(order.stake_micros),
    minOddsBps: order.min_odds_bps,
    orderType: order.order_type,
    fillMode: input.fillMode,
    deadlineMs: order.deadline_ms,
    quoteDeadlineMs,
    expiresAtMs: Math.min(order.deadline_ms, firstClose),
    dueAtMs: input.fillMode === 'best' ? quoteDeadlineMs : Math.min(order.deadline_ms, firstClose),
    createdAtMs: now,
    idempotencyKey: input.idempotencyKey,
  };
  const verdict = await insertRfq(tx, row, settings.maxOpenPerUser);
  if (verdict === 'not_inserted') {
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
  // Answered after the insert's own refusals (NONCE_REUSED and OPEN_RFQ_LIMIT come first); the transaction rolls back: no RFQ.
  if (verdict !== 'ok') throw new InsufficientBalance();
  // What a read would return now: the row as inserted (the columns' defaults for the rest), no quotes yet.
  const rfq: RfqWithQuotes = { rfq: openRfqRecord(row), quotes: [] };
  return { rfq, events: [{ topic: 'rfq.open', frame: rfqFrame(rfq.rfq) }] };
}

/** order.taker, lowercase, when it is the session's wallet; 422 TAKER_MISMATCH otherwise. */
function sessionTaker(input: CreateRfqInput): string {
  const taker = input.order.taker.toLowerCase();
  if (taker === input.sessionAddress.toLowerCase()) return taker;
  throw new Unprocessable(
    'TAKER_MISMATCH',
    `order.taker ${input.order.taker} is not the wallet of this session (${input.sessionAddress}); sign with the session wallet`,
    [{ in: 'body', path: '/order/taker', message: 'must be the session wallet' }],
  );
}

/** The legs' first betting close, when it comes after `mustStayOpenUntil`; 409 BETTING_CLOSED otherwise. */
function assertStillOpenable(legs: readonly RfqLegInfo[], mustStayOpenUntil: number): number {
  const firstClose = Math.min(...legs.map((l) => l.betting_closes_at_ms));
  if (firstClose > mustStayOpenUntil) return firstClose;
  const leg = legs.findIndex((l) => l.betting_closes_at_ms === firstClose);
  throw new Conflict(
    'BETTING_CLOSED',
    `betting on market ${legs[leg]!.market_id} (leg ${leg}) closes at ${firstClose}, before this RFQ could fill; trade the next window`,
    { market_id: legs[leg]!.market_id, betting_closes_at_ms: firstClose },
  );
}

/**
 * rfq_create; a taker with no ledger accounts yet gets them (its user row checked first) and the call runs again.
 * Decided in SQL (rfq_create, PL/pgSQL in src/db/migrations/Migration20261126060000_rfq_fill_path.ts), under the
 * taker's account locks: the open-RFQ limit (`maxOpen` open RFQs: 'not_inserted'), a used nonce (ON CONFLICT:
 * 'not_inserted'), and the reserve (the stake against the available balance: 'insufficient_balance'; else the
 * rfq_reserve posting). The caller tells the two 'not_inserted' apart and answers each verdict.
 */
async function insertRfq(tx: Em, row: NewRfqRow, maxOpen: number) {
  const repo = repos(tx).rfq;
  const verdict = await repo.create(row, maxOpen, randomUUID());
  if (verdict !== 'no_accounts') return verdict;
  if (!(await repo.lockUser(row.takerUserId))) throw new NotFound('USER_NOT_FOUND', 'the session user no longer exists');
  await lockUserBalances(tx, [row.takerUserId], ['user_available', 'user_reserved']);
  return repo.create(row, maxOpen, randomUUID());
}

/** The order's EIP-712 digest when the signature recovers to order.taker; 422 INVALID_SIGNATURE otherwise. */
function verifiedOrderDigest(settings: RfqDeps['settings'], order: RfqOrderJson, signature: string, checked?: Verification): string {
  const domain = rfqDomainOf(settings);
  const v = checked ?? verifyOrderSignature(domain, order, signature);
  if (v.ok) return v.digest;
  const why =
    v.reason === 'signer_mismatch'
      ? `it does not recover to order.taker (a field differs from what was signed, or it was signed for another domain: this deployment's is ${domain.name}/${domain.version}/${domain.chainId} with salt ${domain.salt}; GET /v1/rfq/typed-data)`
      : v.reason === 'malformed_signature'
        ? 'it is not a valid secp256k1 signature (0x + 130 hex, v in 27, 28, 0, 1, s at most n/2 as EIP-2 requires)'
        : 'the order cannot be encoded as the typed data';
  throw new Unprocessable('INVALID_SIGNATURE', `the order signature is not valid: ${why}`, [
    { in: 'body', path: '/signature', message: why },
  ]);
}

/** The RFQ as rfq_create stored it: the row's values, and the columns' defaults for the rest. */
function openRfqRecord(r: NewRfqRow): RfqRecord {
  return rfqFromRow(
    {
      id: r.id,
      taker_user_id: r.takerUserId,
      taker_address: r.takerAddress,
      nonce: r.nonce,
      order_hash: r.orderHash,
      signature: r.signature,
      legs: r.legs,
      stake: r.stake,
      min_odds_bps: r.minOddsBps,
      order_type: r.orderType,
      fill_mode: r.fillMode,
      status: 'open',
      deadline_ms: r.deadlineMs,
      quote_deadline_ms: r.quoteDeadlineMs,
      expires_at_ms: r.expiresAtMs,
      created_at_ms: r.createdAtMs,
      closed_at_ms: null,
      filled_stake: 0n,
      payout: null,
      odds_bps: null,
      position_id: null,
      close_reason: null,
      idempotency_key: r.idempotencyKey,
    },
    0,
  );
}
