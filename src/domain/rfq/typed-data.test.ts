// The worked signing example published in the specs: anvil key #0 signs a concrete RfqOrder and Quote.
import { RFQ_EIP712_SALT_DEV } from '../../constants.js';
import { describe, expect, it } from 'vitest';
import { concat, encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  normalizeSignature,
  orderDigest,
  orderFromTyped,
  orderToTyped,
  orderTypedData,
  quoteDigest,
  quoteFromTyped,
  quoteToTyped,
  quoteTypedData,
  recoverOrderSigner,
  rfqDomain,
  verifyOrderSignature,
  verifyQuoteSignature,
} from './typed-data.js';
import { ANVIL0, ANVIL0_KEY, EXAMPLE_ORDER, EXAMPLE_QUOTE } from '../../testing/rfq-example.js';

const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);

const ORDER_DIGEST = '0x86bab702491347c710e556893aaa355a7f7e0262663f43fc91650d9de4c01531';
const ORDER_SIGNATURE =
  '0x2b452a3c005a6d790d063434ccc435b66c5af72a1116a63a52e02ddfa139133e271cd4336f6cd31c8e4166d82ad4694dd33dd4b28741cbdb807f956b8c8427c41b';
const QUOTE_DIGEST = '0x75ebefd9989006d02e2ddf39c95dc6f6db9400d1aad7fa0422154c187690c321';
const QUOTE_SIGNATURE =
  '0xe96a254f9e493809efb30c0d9f7906f85177949d0faf3591e07b6319131ce12601790f697cdc53103891ee224f7ab670c3016c47b38fc405d57e828a606f3d431b';

const account = privateKeyToAccount(ANVIL0_KEY);

describe('RFQ typed data: the worked example', () => {
  it('anvil key #0 is the published address', () => {
    expect(account.address).toBe(ANVIL0);
  });

  it('pins the order digest and signature bytes', async () => {
    expect(orderDigest(domain, EXAMPLE_ORDER)).toBe(ORDER_DIGEST);
    expect(await account.signTypedData(orderTypedData(domain, EXAMPLE_ORDER))).toBe(ORDER_SIGNATURE);
    expect(await verifyOrderSignature(domain, EXAMPLE_ORDER, ORDER_SIGNATURE)).toEqual({ ok: true, address: ANVIL0, digest: ORDER_DIGEST });
  });

  it('pins the quote digest and signature bytes', async () => {
    expect(quoteDigest(domain, EXAMPLE_QUOTE)).toBe(QUOTE_DIGEST);
    expect(await account.signTypedData(quoteTypedData(domain, EXAMPLE_QUOTE))).toBe(QUOTE_SIGNATURE);
    expect(await verifyQuoteSignature(domain, EXAMPLE_QUOTE, QUOTE_SIGNATURE)).toEqual({ ok: true, address: ANVIL0, digest: QUOTE_DIGEST });
  });

  it('the digest is the EIP-712 hash of the encodeType strings of GET /v1/rfq/typed-data (computed without hashTypedData)', () => {
    const legType = 'Leg(uint64 marketId,uint8 direction)';
    const orderType = `RfqOrder(address taker,Leg[] legs,uint64 stakeMicros,uint32 minOddsBps,uint8 orderType,uint64 nonce,uint64 deadlineMs)${legType}`;
    const th = (s: string) => keccak256(toHex(s));
    const legHashes = EXAMPLE_ORDER.legs.map((l, i) =>
      keccak256(
        encodeAbiParameters(
          [{ type: 'bytes32' }, { type: 'uint64' }, { type: 'uint8' }],
          [th(legType), BigInt(l.market_id), i === 0 ? 0 : 1],
        ),
      ),
    );
    const structHash = keccak256(
      encodeAbiParameters(
        ['bytes32', 'address', 'bytes32', 'uint64', 'uint32', 'uint8', 'uint64', 'uint64'].map((type) => ({ type })),
        [th(orderType), ANVIL0, keccak256(concat(legHashes)), 10_000_000n, 25_000, 2, 1n, 1767225630000n],
      ),
    );
    const domainHash = keccak256(
      encodeAbiParameters(
        ['bytes32', 'bytes32', 'bytes32', 'uint256', 'bytes32'].map((type) => ({ type })),
        [
          th('EIP712Domain(string name,string version,uint256 chainId,bytes32 salt)'),
          th('contest-rfq-service'),
          th('1'),
          8453n,
          RFQ_EIP712_SALT_DEV,
        ],
      ),
    );
    expect(keccak256(concat(['0x1901', domainHash, structHash]))).toBe(ORDER_DIGEST);

    const quoteType = 'Quote(string rfqId,address maker,uint32 oddsBps,uint64 maxFillMicros,uint64 validUntilMs)';
    const quoteStruct = keccak256(
      encodeAbiParameters(
        ['bytes32', 'bytes32', 'address', 'uint32', 'uint64', 'uint64'].map((type) => ({ type })),
        [th(quoteType), th(EXAMPLE_QUOTE.rfq_id), ANVIL0, 26_000, 10_000_000n, 1767225601000n],
      ),
    );
    expect(keccak256(concat(['0x1901', domainHash, quoteStruct]))).toBe(QUOTE_DIGEST);
  });
});

describe('JSON <-> typed mapping', () => {
  it('maps direction up->0 down->1 and order_type IOC->1 FOK->2, legs in order, and back', () => {
    const typed = orderToTyped({ ...EXAMPLE_ORDER, order_type: 'IOC' });
    expect(typed).toEqual({
      taker: ANVIL0.toLowerCase(),
      legs: [
        { marketId: 1042n, direction: 0 },
        { marketId: 1043n, direction: 1 },
      ],
      stakeMicros: 10_000_000n,
      minOddsBps: 25_000,
      orderType: 1,
      nonce: 1n,
      deadlineMs: 1767225630000n,
    });
    expect(orderToTyped(EXAMPLE_ORDER).orderType).toBe(2);
    expect(orderFromTyped(typed)).toEqual({ ...EXAMPLE_ORDER, taker: ANVIL0.toLowerCase(), order_type: 'IOC' });
    expect(quoteFromTyped(quoteToTyped(EXAMPLE_QUOTE))).toEqual({ ...EXAMPLE_QUOTE, maker: ANVIL0.toLowerCase() });
  });

  it('the address case does not change the digest; the rfq id is hashed lowercase', () => {
    expect(orderDigest(domain, { ...EXAMPLE_ORDER, taker: ANVIL0.toLowerCase() })).toBe(ORDER_DIGEST);
    expect(quoteDigest(domain, { ...EXAMPLE_QUOTE, rfq_id: EXAMPLE_QUOTE.rfq_id.toUpperCase() })).toBe(QUOTE_DIGEST);
  });

  it('refuses values outside the JSON integer range or the enums', () => {
    expect(() => orderToTyped({ ...EXAMPLE_ORDER, nonce: 2 ** 53 })).toThrow(/nonce/);
    expect(() => orderToTyped({ ...EXAMPLE_ORDER, stake_micros: 1.5 })).toThrow(/stake_micros/);
    expect(() => orderToTyped({ ...EXAMPLE_ORDER, order_type: 'GTC' as never })).toThrow(/order_type/);
    expect(() => orderToTyped({ ...EXAMPLE_ORDER, legs: [{ market_id: 1, direction: 'sideways' as never }] })).toThrow(
      /legs\[0\]\.direction/,
    );
    expect(() => orderToTyped({ ...EXAMPLE_ORDER, taker: '0x1234' })).toThrow(/taker/);
  });
});

describe('signature checks are results, never throws', () => {
  const flipV = (sig: string, v: string) => `${sig.slice(0, 130)}${v}`;

  it('accepts v as 27/28 or 0/1, with or without 0x, any case', async () => {
    const v = ORDER_SIGNATURE.slice(130); // 1b
    expect(v).toBe('1b');
    for (const sig of [flipV(ORDER_SIGNATURE, '00'), ORDER_SIGNATURE.slice(2), ORDER_SIGNATURE.toUpperCase().replace('0X', '0x')]) {
      expect(await verifyOrderSignature(domain, EXAMPLE_ORDER, sig)).toEqual({ ok: true, address: ANVIL0, digest: ORDER_DIGEST });
    }
  });

  it('a wrong v, a bad shape or an unrecoverable r/s is malformed_signature', async () => {
    for (const sig of [
      flipV(ORDER_SIGNATURE, '05'),
      flipV(ORDER_SIGNATURE, '1d'),
      '0x1234',
      42,
      null,
      `0x${'f'.repeat(128)}1b`,
      `0x${'0'.repeat(128)}1b`,
    ]) {
      expect(await recoverOrderSigner(domain, EXAMPLE_ORDER, sig)).toEqual({ ok: false, reason: 'malformed_signature' });
    }
  });

  it('the other recovery bit, a tampered field or another domain recovers someone else: signer_mismatch', async () => {
    const mismatch = { ok: false, reason: 'signer_mismatch' };
    expect(await verifyOrderSignature(domain, EXAMPLE_ORDER, flipV(ORDER_SIGNATURE, '1c'))).toEqual(mismatch);
    expect(await verifyOrderSignature(domain, { ...EXAMPLE_ORDER, stake_micros: 10_000_001 }, ORDER_SIGNATURE)).toEqual(mismatch);
    expect(await verifyOrderSignature(domain, { ...EXAMPLE_ORDER, legs: [...EXAMPLE_ORDER.legs].reverse() }, ORDER_SIGNATURE)).toEqual(
      mismatch,
    );
    expect(
      await verifyOrderSignature(rfqDomain('contest-rfq-service', 84532, RFQ_EIP712_SALT_DEV), EXAMPLE_ORDER, ORDER_SIGNATURE),
    ).toEqual(mismatch);
    expect(await verifyOrderSignature(rfqDomain('other', 8453, RFQ_EIP712_SALT_DEV), EXAMPLE_ORDER, ORDER_SIGNATURE)).toEqual(mismatch);
    expect(await verifyQuoteSignature(domain, { ...EXAMPLE_QUOTE, odds_bps: 26_001 }, QUOTE_SIGNATURE)).toEqual(mismatch);
    // An order signature is not a quote signature (different primary type).
    expect(await verifyQuoteSignature(domain, EXAMPLE_QUOTE, ORDER_SIGNATURE)).toEqual(mismatch);
  });

  it('a malformed order is malformed_message, not an exception', async () => {
    expect(await verifyOrderSignature(domain, { ...EXAMPLE_ORDER, nonce: -1 }, ORDER_SIGNATURE)).toEqual({
      ok: false,
      reason: 'malformed_message',
    });
    expect(await verifyOrderSignature(domain, { ...EXAMPLE_ORDER, min_odds_bps: 2 ** 32 }, ORDER_SIGNATURE)).toEqual({
      ok: false,
      reason: 'malformed_message',
    });
  });

  it('recovers the same address as viem recoverTypedDataAddress', async () => {
    const { recoverTypedDataAddress } = await import('viem');
    const other = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'); // anvil #1
    const sig = await other.signTypedData(orderTypedData(domain, EXAMPLE_ORDER));
    const r = await recoverOrderSigner(domain, EXAMPLE_ORDER, sig);
    expect(r).toEqual({
      ok: true,
      address: await recoverTypedDataAddress({ ...orderTypedData(domain, EXAMPLE_ORDER), signature: sig }),
      digest: ORDER_DIGEST,
    });
    expect(r.ok && r.address).toBe(other.address);
  });

  it('normalizeSignature', () => {
    expect(normalizeSignature(ORDER_SIGNATURE.slice(2).toUpperCase())).toBe(ORDER_SIGNATURE as Hex);
    expect(normalizeSignature(`${ORDER_SIGNATURE}00`)).toBeNull();
    expect(normalizeSignature(flipV(ORDER_SIGNATURE, '02'))).toBeNull();
  });
});
