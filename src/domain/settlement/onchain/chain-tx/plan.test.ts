// The chain-transaction plan (plan.ts) over random stored attempts, chain observations, fee policies and clocks,
// without a node: nothing above the fee cap, nothing replaced once its nonce is used or mined, nothing failed
// once signed, a missing receipt never settles anything, only the lowest open nonce is bumped, and a
// replacement always clears the node's 10% minimum.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeastNodeMinimum, bump, capFees, replacementFees } from './fees.js';
import { planNext, type Observation, type Policy, type StoredAttempt } from './plan.js';

const gwei = (n: number) => BigInt(Math.round(n * 1e9));
const wei = fc.bigInt({ min: 1n, max: 10n ** 12n });
const fees = fc.record({ maxFeePerGas: wei, maxPriorityFeePerGas: wei });
const cap = fc.record({ maxFeePerGas: wei, maxPriorityFeePerGas: wei });
const NOW = 1_800_000_000_000;

const attempts = fc
  .tuple(fc.bigInt({ min: 0n, max: 1000n }), fc.array(fees, { maxLength: 5 }), fc.integer({ min: 0, max: 600_000 }))
  .map(([nonce, fs, age]) =>
    fs.map((f, i): StoredAttempt => ({ hash: `0x${i.toString(16).padStart(64, '0')}`, nonce, attempt: i, ...f, createdAtMs: NOW - age })),
  );

const observation = (ats: StoredAttempt[]) =>
  fc.record({
    head: fc.bigInt({ min: 0n, max: 2000n }),
    receipt: fc.option(
      fc.record({
        hash: fc.constant(ats.at(-1)?.hash ?? '0x01'),
        blockNumber: fc.bigInt({ min: 0n, max: 2000n }),
        status: fc.constantFrom('success' as const, 'reverted' as const),
      }),
      { nil: null },
    ),
    nonceUsed: fc.boolean(),
    lowestOpenNonce: fc.option(fc.bigInt({ min: 0n, max: 1000n }), { nil: null }),
    gapFrom: fc.option(fc.bigInt({ min: 0n, max: 1000n }), { nil: null }),
    estimate: fees,
    evidence: fc.option(fc.constantFrom({ kind: 'consumed' as const }, { kind: 'foreign' as const, hash: '0xff', blockNumber: 5n }), {
      nil: null,
    }),
    preflight: fc.option(
      fc.constantFrom(
        { ok: true as const },
        { ok: false as const, wait: 'hot_wallet_funds' as const },
        { ok: false as const, fail: 'DESTINATION_BLACKLISTED' },
      ),
      { nil: null },
    ),
  }) as fc.Arbitrary<Omit<Observation, 'nowMs'>>;

const policy = fc.record({
  confirmations: fc.integer({ min: 1, max: 20 }),
  replaceAfterMs: fc.integer({ min: 0, max: 300_000 }),
  receiptReviewAfterMs: fc.integer({ min: 1000, max: 900_000 }),
  cap,
}) as fc.Arbitrary<Policy>;

const cases = attempts.chain((ats) =>
  fc.tuple(fc.constant(ats), observation(ats), policy, fc.option(fc.integer({ min: NOW - 3_600_000, max: NOW }), { nil: null })),
);

describe('planNext', () => {
  it('never signs or replaces above the cap, and a replacement clears the node minimum', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        const step = planNext(ats, { ...o, nowMs: NOW }, p, since);
        if (step.do === 'sign' || step.do === 'replace') {
          expect(step.fees.maxFeePerGas <= p.cap.maxFeePerGas).toBe(true);
          expect(step.fees.maxPriorityFeePerGas <= p.cap.maxPriorityFeePerGas).toBe(true);
          expect(step.fees.maxPriorityFeePerGas <= step.fees.maxFeePerGas).toBe(true);
        }
        if (step.do === 'replace') {
          const latest = ats.at(-1)!;
          expect(step.replaces).toBe(latest.hash);
          expect(step.fees.maxFeePerGas >= atLeastNodeMinimum(latest.maxFeePerGas)).toBe(true);
          expect(step.fees.maxPriorityFeePerGas >= atLeastNodeMinimum(latest.maxPriorityFeePerGas)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('a receipt decides alone: recorded with its confirmations, else waited for; never replaced, failed or reviewed', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        fc.pre(o.receipt !== null);
        const step = planNext(ats, { ...o, nowMs: NOW }, p, since);
        const deep = o.head - o.receipt!.blockNumber + 1n >= BigInt(p.confirmations);
        expect(step).toEqual(deep ? { do: 'record', ...o.receipt } : { do: 'wait', reason: 'confirmations' });
      }),
    );
  });

  it('a used nonce without a receipt is never replaced, failed or settled: it waits or goes to review', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        fc.pre(o.receipt === null && o.nonceUsed && ats.length > 0);
        const step = planNext(ats, { ...o, nowMs: NOW }, p, since);
        expect(['wait', 'review']).toContain(step.do);
        if (step.do === 'wait') expect(step.reason).toBe('receipt_missing');
        if (step.do === 'review')
          expect(o.evidence?.kind === 'foreign' || (since !== null && NOW - since >= p.receiptReviewAfterMs)).toBe(true);
      }),
    );
  });

  it('fails only before the first signature, and only on the preflight', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        const step = planNext(ats, { ...o, nowMs: NOW }, p, since);
        if (step.do === 'fail') {
          expect(ats).toHaveLength(0);
          expect(o.preflight).toMatchObject({ ok: false, fail: step.code });
        }
        if (step.do === 'sign') expect(ats).toHaveLength(0);
      }),
    );
  });

  it('behind a nonce gap nothing is replaced: it waits for the gap to be filled', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        fc.pre(o.receipt === null && !o.nonceUsed && o.gapFrom !== null && ats.length > 0);
        expect(planNext(ats, { ...o, nowMs: NOW }, p, since)).toEqual({ do: 'wait', reason: 'nonce_gap' });
      }),
    );
  });

  it('replaces only the lowest open nonce, after CHAIN_REPLACE_AFTER_MS, when the network asks for more than it pays', () => {
    fc.assert(
      fc.property(cases, ([ats, o, p, since]) => {
        const step = planNext(ats, { ...o, nowMs: NOW }, p, since);
        if (step.do !== 'replace') return;
        const latest = ats.at(-1)!;
        expect(o.receipt).toBeNull();
        expect(o.nonceUsed).toBe(false);
        expect(o.gapFrom).toBeNull();
        expect(o.lowestOpenNonce === null || latest.nonce <= o.lowestOpenNonce).toBe(true);
        expect(NOW - latest.createdAtMs >= p.replaceAfterMs).toBe(true);
        expect(o.estimate.maxFeePerGas > latest.maxFeePerGas || o.estimate.maxPriorityFeePerGas > latest.maxPriorityFeePerGas).toBe(true);
      }),
    );
  });

  it('20 replacement rounds against a fee market that keeps rising: never above the cap, then waits at it', () => {
    const p: Policy = {
      confirmations: 1,
      replaceAfterMs: 0,
      receiptReviewAfterMs: 900_000,
      cap: { maxFeePerGas: gwei(5), maxPriorityFeePerGas: gwei(1) },
    };
    const ats: StoredAttempt[] = [];
    let estimate = { maxFeePerGas: gwei(1), maxPriorityFeePerGas: gwei(0.1) };
    const steps: string[] = [];
    for (let round = 0; round < 20; round++) {
      const o: Observation = {
        nowMs: NOW,
        head: 10n,
        receipt: null,
        nonceUsed: false,
        lowestOpenNonce: 7n,
        gapFrom: null,
        estimate,
        evidence: null,
        preflight: { ok: true },
      };
      const step = planNext(ats, o, p, null);
      steps.push(step.do === 'wait' ? `wait:${step.reason}` : step.do);
      if (step.do === 'sign' || step.do === 'replace') {
        ats.push({ hash: `0x${round}`, nonce: 7n, attempt: ats.length, ...step.fees, createdAtMs: NOW });
      }
      for (const a of ats) expect(a.maxFeePerGas <= p.cap.maxFeePerGas && a.maxPriorityFeePerGas <= p.cap.maxPriorityFeePerGas).toBe(true);
      estimate = { maxFeePerGas: bump(estimate.maxFeePerGas) * 2n, maxPriorityFeePerGas: bump(estimate.maxPriorityFeePerGas) * 2n };
    }
    expect(steps[0]).toBe('sign');
    expect(steps.slice(-5)).toEqual(Array(5).fill('wait:fee_cap'));
    // It stopped where the cap left no room for the node's 10% minimum: within 10% of the cap.
    const last = ats.at(-1)!;
    expect(
      atLeastNodeMinimum(last.maxFeePerGas) > p.cap.maxFeePerGas ||
        atLeastNodeMinimum(last.maxPriorityFeePerGas) > p.cap.maxPriorityFeePerGas,
    ).toBe(true);
  });
});

describe('fees', () => {
  it('capFees never exceeds the cap and keeps priority <= max fee', () => {
    fc.assert(
      fc.property(fees, cap, (f, c) => {
        const { fees: out, capped } = capFees(f, c);
        expect(out.maxFeePerGas <= c.maxFeePerGas && out.maxPriorityFeePerGas <= c.maxPriorityFeePerGas).toBe(true);
        expect(out.maxPriorityFeePerGas <= out.maxFeePerGas).toBe(true);
        expect(capped).toBe(out.maxFeePerGas !== f.maxFeePerGas || out.maxPriorityFeePerGas !== f.maxPriorityFeePerGas);
      }),
    );
  });

  it('replacementFees: null exactly when the cap leaves less than the node minimum', () => {
    fc.assert(
      fc.property(fees, fees, cap, (latest, est, c) => {
        const r = replacementFees(latest, est, c);
        const room =
          c.maxFeePerGas >= atLeastNodeMinimum(latest.maxFeePerGas) &&
          c.maxPriorityFeePerGas >= atLeastNodeMinimum(latest.maxPriorityFeePerGas);
        if (r === null) return;
        expect(room).toBe(true);
        expect(r.fees.maxFeePerGas <= c.maxFeePerGas).toBe(true);
      }),
    );
  });
});
