// The maker's quote signing against the worked example of spec/asyncapi.yaml ("Worked RFQ signing
// example": anvil key #0, default domain): the same digest and the same signature, recovered by viem.
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RFQ_DOMAIN, quoteToTypedMessage, quoteTypedData, signQuote, type QuoteJson } from '@contest-rfq/sdk';
import { EXAMPLE_QUOTE } from '../../src/testing/rfq-example.js';
import { quoteTypedData as serviceQuoteTypedData, rfqDomain } from '../../src/domain/rfq/typed-data.js';

const ANVIL_0 = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const QUOTE: QuoteJson = {
  rfq_id: '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a',
  maker: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  odds_bps: 26_000,
  max_fill_micros: 10_000_000,
  valid_until_ms: 1767225601000,
};

describe('quote signing', () => {
  it('gives the published digest and signature, which recover to the maker', async () => {
    expect(hashTypedData(quoteTypedData(DEFAULT_RFQ_DOMAIN, QUOTE))).toBe(
      '0x75ebefd9989006d02e2ddf39c95dc6f6db9400d1aad7fa0422154c187690c321',
    );
    const signature = await signQuote(ANVIL_0, DEFAULT_RFQ_DOMAIN, QUOTE);
    expect(signature).toBe(
      '0xe96a254f9e493809efb30c0d9f7906f85177949d0faf3591e07b6319131ce12601790f697cdc53103891ee224f7ab670c3016c47b38fc405d57e828a606f3d431b',
    );
    expect(await recoverTypedDataAddress({ ...quoteTypedData(DEFAULT_RFQ_DOMAIN, QUOTE), signature })).toBe(ANVIL_0.address);
  });

  it('hashes what the service hashes (its own typed data of the same quote)', () => {
    expect(QUOTE).toEqual(EXAMPLE_QUOTE);
    expect(hashTypedData(quoteTypedData(DEFAULT_RFQ_DOMAIN, QUOTE))).toBe(
      hashTypedData(serviceQuoteTypedData(rfqDomain('contest-rfq-service', 8453, DEFAULT_RFQ_DOMAIN.salt), QUOTE)),
    );
    const other = { ...DEFAULT_RFQ_DOMAIN, chainId: 1 };
    expect(hashTypedData(quoteTypedData(other, QUOTE))).not.toBe(hashTypedData(quoteTypedData(DEFAULT_RFQ_DOMAIN, QUOTE)));
  });

  it('lowercases the RFQ id and maker, and refuses values the service would', async () => {
    expect(quoteToTypedMessage({ ...QUOTE, rfq_id: QUOTE.rfq_id.toUpperCase() }).rfqId).toBe(QUOTE.rfq_id);
    expect(() => quoteToTypedMessage({ ...QUOTE, odds_bps: 1.5 })).toThrow(TypeError);
    expect(() => quoteToTypedMessage({ ...QUOTE, maker: 'nope' })).toThrow(TypeError);
    await expect(async () => signQuote(privateKeyToAccount(`0x${'11'.repeat(32)}`), DEFAULT_RFQ_DOMAIN, QUOTE)).rejects.toThrow(
      /not the signing account/,
    );
  });
});
