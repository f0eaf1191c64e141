// Random RFQ books for the property tests of the allocation (src/domain/rfq/allocate.property.test.ts) and of
// the close plan (src/domain/rfq/close-plan.property.test.ts): quotes around one instant and the order's
// amounts, within the service's bounds. `balance` is the quoting maker's available balance.
import fc from 'fast-check';

export const BOOK_NOW = 1_767_225_600_000;

export const quoteArb = fc.record({
  oddsBps: fc.integer({ min: 10_001, max: 60_000 }),
  maxFillMicros: fc.bigInt({ min: 1n, max: 20_000_000n }),
  validUntilMs: fc.integer({ min: BOOK_NOW - 100, max: BOOK_NOW + 100 }),
  receivedAtMs: fc.integer({ min: BOOK_NOW - 500, max: BOOK_NOW }),
  balance: fc.bigInt({ min: 0n, max: 40_000_000n }),
});

/** The signed order's amounts and the deployment's limits that the allocation reads. */
export const orderFields = {
  stakeMicros: fc.bigInt({ min: 10_000n, max: 20_000_000n }),
  minOddsBps: fc.integer({ min: 10_001, max: 40_000 }),
  orderType: fc.constantFrom('FOK' as const, 'IOC' as const),
  maxPayoutMicros: fc.bigInt({ min: 20_000_000n, max: 200_000_000n }),
  minFillMicros: fc.bigInt({ min: 1n, max: 1_000_000n }),
};
