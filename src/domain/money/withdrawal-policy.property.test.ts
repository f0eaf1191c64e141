// Properties of decideWithdrawal and destinationRule over random inputs (withdrawal-policy.ts): the refusals come
// in their documented order; an accepted withdrawal never takes the user past the daily limit by a micro and
// reserves exactly amount + fee; a refused one names what is left; review is held exactly when the threshold or the
// hourly volume says so; and over any sequence of requests decided one after the other (as the locks make them),
// what is accepted never passes the daily limit and what is sent without review never passes the hourly one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWithdrawal, depositRefusal, destinationRule, type DestinationRule, type WithdrawalRules } from './withdrawal-policy.js';

const micros = (max = 50_000_000n) => fc.bigInt({ min: 1n, max });
const optional = (arb: fc.Arbitrary<bigint>) => fc.option(arb, { nil: null });

const rulesArb: fc.Arbitrary<WithdrawalRules> = fc.record({
  minMicros: micros(2_000_000n),
  feeMicros: fc.bigInt({ min: 0n, max: 500_000n }),
  dailyLimitMicros: optional(micros(100_000_000n)),
  hourlyLimitMicros: optional(micros(200_000_000n)),
  reviewAboveMicros: optional(fc.bigInt({ min: 0n, max: 60_000_000n })),
});

const RULES: readonly DestinationRule[] = [
  'zero_address',
  'token_contract',
  'settlement_wallet',
  'cold_wallet',
  'deposit_address',
  'denylist',
  'sanctioned',
];

const factsArb = fc.record({
  amount: micros(),
  destination: fc.option(fc.constantFrom(...RULES), { nil: null }),
  userWithdrawnDay: fc.bigInt({ min: 0n, max: 120_000_000n }),
  automaticWithdrawnHour: fc.bigInt({ min: 0n, max: 250_000_000n }),
});

describe('decideWithdrawal', () => {
  it('refuses in order: destination, minimum, daily limit; accepts with amount + fee reserved and the right review causes', () => {
    fc.assert(
      fc.property(rulesArb, factsArb, (rules, f) => {
        const d = decideWithdrawal(rules, f);
        if (f.destination) {
          expect(d).toEqual({ accept: false, refusal: { code: 'DESTINATION_NOT_ALLOWED', rule: f.destination } });
          return;
        }
        if (f.amount < rules.minMicros) {
          expect(d).toEqual({ accept: false, refusal: { code: 'WITHDRAWAL_TOO_SMALL', minMicros: rules.minMicros } });
          return;
        }
        const daily = rules.dailyLimitMicros;
        if (daily !== null && f.userWithdrawnDay + f.amount > daily) {
          expect(d.accept).toBe(false);
          const r = !d.accept && d.refusal;
          expect(r && r.code).toBe('WITHDRAWAL_LIMIT_EXCEEDED');
          if (r && r.code === 'WITHDRAWAL_LIMIT_EXCEEDED') {
            expect(r.remainingMicros).toBe(daily > f.userWithdrawnDay ? daily - f.userWithdrawnDay : 0n);
            expect(f.amount).toBeGreaterThan(r.remainingMicros); // what is left could not have covered it
          }
          return;
        }
        expect(d.accept).toBe(true);
        if (!d.accept) return;
        expect(d.fee).toBe(rules.feeMicros);
        expect(d.reserve).toBe(f.amount + rules.feeMicros);
        if (daily !== null) expect(f.userWithdrawnDay + f.amount).toBeLessThanOrEqual(daily);
        const above = rules.reviewAboveMicros !== null && f.amount > rules.reviewAboveMicros;
        const hourly = rules.hourlyLimitMicros !== null && f.automaticWithdrawnHour + f.amount > rules.hourlyLimitMicros;
        expect(d.review).toEqual([...(above ? ['above_review_threshold'] : []), ...(hourly ? ['hourly_limit'] : [])]);
      }),
      { numRuns: 2000 },
    );
  });

  it('over a sequence decided one after the other: accepted never passes the daily limit, unreviewed never passes the hourly one', () => {
    fc.assert(
      fc.property(rulesArb, fc.array(micros(30_000_000n), { minLength: 1, maxLength: 60 }), (rules, amounts) => {
        let day = 0n;
        let hour = 0n;
        for (const amount of amounts) {
          const d = decideWithdrawal(rules, { amount, destination: null, userWithdrawnDay: day, automaticWithdrawnHour: hour });
          if (!d.accept) continue;
          day += amount;
          if (!d.review.length) hour += amount;
        }
        if (rules.dailyLimitMicros !== null) expect(day).toBeLessThanOrEqual(rules.dailyLimitMicros);
        if (rules.hourlyLimitMicros !== null) expect(hour).toBeLessThanOrEqual(rules.hourlyLimitMicros);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('destinationRule', () => {
  const hex = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  it('names the first rule that matches, in the documented order, and nothing for an ordinary address', () => {
    fc.assert(
      fc.property(
        hex,
        fc.record({ token: hex, settlement: hex, cold: hex }),
        fc.record({ zero: fc.boolean(), token: fc.boolean(), settlement: fc.boolean(), cold: fc.boolean() }),
        fc.record({ isDepositAddress: fc.boolean(), denylisted: fc.boolean(), sanctioned: fc.boolean() }),
        (plain, own, is, flags) => {
          const address = is.zero
            ? `0x${'0'.repeat(40)}`
            : is.token
              ? own.token
              : is.settlement
                ? own.settlement
                : is.cold
                  ? own.cold
                  : plain;
          const rule = destinationRule({ address, ...own, ...flags });
          const expected = /^0x0{40}$/.test(address)
            ? 'zero_address'
            : address === own.token
              ? 'token_contract'
              : address === own.settlement
                ? 'settlement_wallet'
                : address === own.cold
                  ? 'cold_wallet'
                  : flags.isDepositAddress
                    ? 'deposit_address'
                    : flags.denylisted
                      ? 'denylist'
                      : flags.sanctioned
                        ? 'sanctioned'
                        : null;
          expect(rule).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a deployment without its own addresses (demo) refuses only the zero address and the flagged ones', () => {
    const none = { token: null, settlement: null, cold: null, isDepositAddress: false, denylisted: false, sanctioned: false };
    expect(destinationRule({ ...none, address: `0x${'0'.repeat(40)}` })).toBe('zero_address');
    expect(destinationRule({ ...none, address: `0x${'0'.repeat(39)}1` })).toBeNull();
  });
});

describe('depositRefusal', () => {
  it('refuses exactly the amounts below the minimum', () => {
    fc.assert(
      fc.property(micros(), micros(), (min, amount) => {
        expect(depositRefusal(min, amount)).toEqual(amount < min ? { code: 'DEPOSIT_TOO_SMALL', minMicros: min } : null);
      }),
    );
  });
});
