// RFQ trading through the generated client, every response checked against the spec. So far:
// getRfqTypedData, and the worked signing example of its description signed with what it serves.
import { RFQ_EIP712_SALT_DEV } from '../src/constants.js';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { getRfqTypedData } from '../generated/openapi/sdk.gen.ts';
import { startContractService, type ContractService } from './harness.ts';

let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('rfq', {
    env: { SIWE_CHAIN_IDS: '8453,84532', RFQ_SIGNING_CHAIN_ID: '84532', RFQ_EIP712_NAME: 'Contract Venue' },
  });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('getRfqTypedData', () => {
  it('200: the configured domain, the documented types, cacheable; signing with it reproduces a viem signature', async () => {
    const api = svc.client();
    const { data, checked } = await api.run(getRfqTypedData({ client: api.client }), { status: 200 });
    expect(checked.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(data!.domain).toEqual({ name: 'Contract Venue', version: '1', chainId: 84532, salt: RFQ_EIP712_SALT_DEV });
    expect(data!.primary_types).toEqual({ order: 'RfqOrder', quote: 'Quote' });
    const encode = (t: string) => `${t}(${data!.types[t as 'Leg']!.map((f) => `${f.type} ${f.name}`).join(',')})`;
    expect(encode('RfqOrder') + encode('Leg')).toBe(
      'RfqOrder(address taker,Leg[] legs,uint64 stakeMicros,uint32 minOddsBps,uint8 orderType,uint64 nonce,uint64 deadlineMs)Leg(uint64 marketId,uint8 direction)',
    );
    expect(encode('Quote')).toBe('Quote(string rfqId,address maker,uint32 oddsBps,uint64 maxFillMicros,uint64 validUntilMs)');

    // The worked example of the spec, on the default domain, signed with the served types as a client would.
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const signature = await account.signTypedData({
      domain: { ...data!.domain, name: 'contest-rfq-service', chainId: 8453, salt: RFQ_EIP712_SALT_DEV },
      types: data!.types,
      primaryType: data!.primary_types.order,
      message: {
        taker: account.address,
        legs: [
          { marketId: 1042n, direction: 0 },
          { marketId: 1043n, direction: 1 },
        ],
        stakeMicros: 10_000_000n,
        minOddsBps: 25_000,
        orderType: 2,
        nonce: 1n,
        deadlineMs: 1767225630000n,
      },
    });
    expect(signature).toBe(
      '0x2b452a3c005a6d790d063434ccc435b66c5af72a1116a63a52e02ddfa139133e271cd4336f6cd31c8e4166d82ad4694dd33dd4b28741cbdb807f956b8c8427c41b',
    );
  });
});
