// The worked signing example published in spec/openapi.yaml (getRfqTypedData) and spec/asyncapi.yaml:
// the public anvil/Hardhat key #0 signs this order and this quote. One copy for the tests and benches
// (src/domain/rfq/spec-example.test.ts checks the documents against the code).
import type { QuoteJson, RfqOrderJson } from '../domain/rfq/typed-data.js';

/** Public test key: never use it for funds. */
export const ANVIL0_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ANVIL0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export const EXAMPLE_ORDER: RfqOrderJson = {
  taker: ANVIL0,
  legs: [
    { market_id: 1042, direction: 'up' },
    { market_id: 1043, direction: 'down' },
  ],
  stake_micros: 10_000_000,
  min_odds_bps: 25_000,
  order_type: 'FOK',
  nonce: 1,
  deadline_ms: 1767225630000,
};

export const EXAMPLE_QUOTE: QuoteJson = {
  rfq_id: '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a',
  maker: ANVIL0,
  odds_bps: 26_000,
  max_fill_micros: 10_000_000,
  valid_until_ms: 1767225601000,
};
