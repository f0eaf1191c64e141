// The statement's pure steps: which transactions make a page (choosePage), the balances walked down a page
// (walk), the signed position a cursor carries, and the references typed by kind.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MovementPart, ScannedEntry } from '../../db/repositories/statement.repository.js';
import { ledgerReference } from './kinds.js';
import { choosePage, decodePosition, encodePosition, walk } from './statement.js';

const e = (id: number, tx: string, account: string, straddles = false): ScannedEntry => ({
  id: BigInt(id),
  transactionId: tx,
  accountId: account,
  straddles,
});

describe('choosePage', () => {
  it('keys each transaction by its newest entry, skips the ones shown before, and says whether more follow', () => {
    const scanned = [e(9, 'S', 'a', true), e(8, 'T', 'b'), e(7, 'U', 'a'), e(6, 'T', 'a'), e(5, 'S', 'b', true), e(4, 'V', 'b')];
    expect(choosePage(scanned, 10, 2)).toEqual({
      page: [
        { transactionId: 'T', key: 8n },
        { transactionId: 'U', key: 7n },
      ],
      more: true,
    });
    expect(choosePage(scanned, 10, 3)).toEqual({
      page: [
        { transactionId: 'T', key: 8n },
        { transactionId: 'U', key: 7n },
        { transactionId: 'V', key: 4n },
      ],
      more: false,
    });
    expect(choosePage([], 10, 3)).toEqual({ page: [], more: false });
  });

  it('asks for a deeper scan when an account was cut above the transactions it would need', () => {
    // Account a was read down to 6 only (its limit of 3): a transaction first seen below 6 may have a newer entry unread.
    const scanned = [e(9, 'T', 'a'), e(8, 'T', 'b'), e(7, 'T', 'a'), e(6, 'U', 'a'), e(2, 'W', 'b')];
    expect(choosePage(scanned, 3, 2)).toBeNull();
    expect(choosePage(scanned, 3, 1)).toEqual({ page: [{ transactionId: 'T', key: 9n }], more: true });
  });
});

describe('walk', () => {
  it("gives each movement the balances after it and the next one's start, per balance", () => {
    const part = (tx: string, accountId: string, amount: bigint, kind = 'contest_entry', reference = 'r'): MovementPart => ({
      transactionId: tx,
      kind,
      reference,
      atMs: 1,
      accountId,
      amount,
    });
    const name = (id: string) =>
      ({ a: 'available', r: 'reserved', t: 'appToken' })[id] as 'available' | 'reserved' | 'appToken' | undefined;
    const { movements, next } = walk(
      { available: 50n, reserved: 20n, appToken: 3n },
      [
        { transactionId: 'T', key: 9n },
        { transactionId: 'U', key: 5n },
      ],
      [
        part('T', 'a', -20n),
        part('T', 'r', 20n),
        part('T', 't', 0n),
        part('U', 'a', 70n, 'position_settle', 'window:1042'),
        part('U', 'r', 0n),
      ],
      name,
    );
    expect(movements.map((m) => [m.id, m.change, m.after])).toEqual([
      ['T', { available: -20n, reserved: 20n, appToken: 0n }, { available: 50n, reserved: 20n, appToken: 3n }],
      ['U', { available: 70n, reserved: 0n, appToken: 0n }, { available: 70n, reserved: 0n, appToken: 3n }],
    ]);
    expect(movements[1]!.reference).toEqual({ type: 'market_window', id: '1042' });
    expect(next).toEqual({ available: 0n, reserved: 0n, appToken: 3n });
    expect(() =>
      walk({ available: 0n, reserved: 0n, appToken: 0n }, [{ transactionId: 'X', key: 1n }], [part('X', 'a', 1n, 'probe')], name),
    ).toThrow(/kind no statement knows: probe/);
  });
});

describe('the position a cursor carries', () => {
  const key = randomBytes(32);
  const at = {
    before: 1234n,
    upTo: { available: 1200n, reserved: 0n, appToken: 7n },
    balances: { available: 5n, reserved: 10n, appToken: 0n },
  };

  it('round-trips for its user only; an edited, forged or foreign cursor is INVALID_CURSOR', () => {
    const raw = encodePosition(key, 'user-a', at);
    expect(decodePosition(key, 'user-a', raw)).toEqual(at);
    expect(() => decodePosition(key, 'user-b', raw)).toThrow(/another user/);
    expect(() => decodePosition(randomBytes(32), 'user-a', raw)).toThrow(/not produced by this service/);
    const [payload, tag] = raw.split('.');
    const edited = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace('"5"', '"9"')).toString('base64url');
    expect(() => decodePosition(key, 'user-a', `${edited}.${tag}`)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }));
  });
});

describe('ledgerReference', () => {
  it('types the reference by kind and drops the prefix a kind writes', () => {
    expect(ledgerReference('deposit', 'c0ffee')).toEqual({ type: 'operation', id: 'c0ffee' });
    expect(ledgerReference('position_settle', 'window:77')).toEqual({ type: 'market_window', id: '77' });
    expect(ledgerReference('app_token_credit', 'app-token-credit:k1')).toEqual({ type: 'app_token_credit', id: 'k1' });
    expect(ledgerReference('rfq_fill', 'p1')).toEqual({ type: 'position', id: 'p1' });
    expect(ledgerReference('contest_payout', 'c1')).toEqual({ type: 'contest', id: 'c1' });
  });
});
