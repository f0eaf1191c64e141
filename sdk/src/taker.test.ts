// The taker helpers against the worked example of GET /v1/rfq/typed-data (spec/openapi.yaml on rfq-core:
// anvil key #0, default domain): the same digest and the same signature.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  createClient,
  fetchTypedData,
  orderToTypedMessage,
  orderTypedData,
  signOrder,
  submitRfq,
  type RfqOrderJson,
  type RfqTypedData,
} from '@contest-rfq/sdk';

const ANVIL_0 = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const TYPED_DATA: RfqTypedData = {
  domain: {
    name: 'contest-rfq-service',
    version: '1',
    chainId: 8453,
    salt: '0x8d5d28a7520b2fce0220b78bd608db6c5be909e11e680da4203c9aadfd8911e4',
  },
  types: {
    RfqOrder: [
      { name: 'taker', type: 'address' },
      { name: 'legs', type: 'Leg[]' },
      { name: 'stakeMicros', type: 'uint64' },
      { name: 'minOddsBps', type: 'uint32' },
      { name: 'orderType', type: 'uint8' },
      { name: 'nonce', type: 'uint64' },
      { name: 'deadlineMs', type: 'uint64' },
    ],
    Leg: [
      { name: 'marketId', type: 'uint64' },
      { name: 'direction', type: 'uint8' },
    ],
    Quote: [
      { name: 'rfqId', type: 'string' },
      { name: 'maker', type: 'address' },
      { name: 'oddsBps', type: 'uint32' },
      { name: 'maxFillMicros', type: 'uint64' },
      { name: 'validUntilMs', type: 'uint64' },
    ],
  },
  primary_types: { order: 'RfqOrder', quote: 'Quote' },
};
const ORDER: RfqOrderJson = {
  taker: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  legs: [
    { market_id: 1042, direction: 'up' },
    { market_id: 1043, direction: 'down' },
  ],
  stake_micros: 10000000,
  min_odds_bps: 25000,
  order_type: 'FOK',
  nonce: 1,
  deadline_ms: 1767225630000,
};
const DIGEST = '0x86bab702491347c710e556893aaa355a7f7e0262663f43fc91650d9de4c01531';
const SIGNATURE =
  '0x2b452a3c005a6d790d063434ccc435b66c5af72a1116a63a52e02ddfa139133e271cd4336f6cd31c8e4166d82ad4694dd33dd4b28741cbdb807f956b8c8427c41b';

describe('signOrder', () => {
  it('maps the JSON order to the RfqOrder message of the mapping table', () => {
    expect(orderToTypedMessage(ORDER)).toEqual({
      taker: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      legs: [
        { marketId: 1042n, direction: 0 },
        { marketId: 1043n, direction: 1 },
      ],
      stakeMicros: 10000000n,
      minOddsBps: 25000,
      orderType: 2,
      nonce: 1n,
      deadlineMs: 1767225630000n,
    });
    expect(orderToTypedMessage({ ...ORDER, order_type: 'IOC' }).orderType).toBe(1);
  });

  it('gives the worked example digest and signature (anvil key #0)', async () => {
    expect(hashTypedData(orderTypedData(TYPED_DATA, ORDER))).toBe(DIGEST);
    const signature = await signOrder(ANVIL_0, TYPED_DATA, ORDER);
    expect(signature).toBe(SIGNATURE);
    expect(await recoverTypedDataAddress({ ...orderTypedData(TYPED_DATA, ORDER), signature })).toBe(ANVIL_0.address);
  });

  it('a changed field, leg order or domain changes the digest', () => {
    const digest = (td: RfqTypedData, o: RfqOrderJson) => hashTypedData(orderTypedData(td, o));
    expect(digest(TYPED_DATA, { ...ORDER, legs: [...ORDER.legs].reverse() })).not.toBe(DIGEST);
    expect(digest(TYPED_DATA, { ...ORDER, nonce: 2 })).not.toBe(DIGEST);
    expect(digest({ ...TYPED_DATA, domain: { ...TYPED_DATA.domain, chainId: 1 } }, ORDER)).not.toBe(DIGEST);
  });

  it('refuses values the service would refuse, and a taker that is not the signer', async () => {
    expect(() => orderToTypedMessage({ ...ORDER, order_type: 'GTC' as never })).toThrow(/order_type must be one of IOC, FOK/);
    expect(() => orderToTypedMessage({ ...ORDER, legs: [{ market_id: 1, direction: 'yes' as never }] })).toThrow(/legs\[0\].direction/);
    expect(() => orderToTypedMessage({ ...ORDER, stake_micros: 1.5 })).toThrow(/stake_micros/);
    expect(() => orderToTypedMessage({ ...ORDER, nonce: -1 })).toThrow(/nonce/);
    expect(() => orderToTypedMessage({ ...ORDER, taker: '0x1234' })).toThrow(/taker/);
    expect(() => signOrder(ANVIL_0, TYPED_DATA, { ...ORDER, taker: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })).toThrow(
      /not the signing account/,
    );
  });
});

describe('fetchTypedData', () => {
  it('reads GET /v1/rfq/typed-data over HTTP and throws with the status otherwise', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/v1/rfq/typed-data') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(TYPED_DATA));
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found","code":"NOT_FOUND","details":[]}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await fetchTypedData(createClient({ baseUrl: `http://127.0.0.1:${port}/` }))).toEqual(TYPED_DATA);
      await expect(fetchTypedData(createClient({ baseUrl: `http://127.0.0.1:${port}/nowhere` }))).rejects.toThrow(
        /failed \(404\).*NOT_FOUND/,
      );
    } finally {
      server.close();
    }
  });
});

describe('submitRfq', () => {
  /** A service answering POST /v1/rfq with `answers` in turn (the last one repeated); the bodies it received. */
  async function serve(answers: Array<{ status: number; headers?: Record<string, string>; code?: string }>) {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        const a = answers[Math.min(bodies.length, answers.length) - 1]!;
        const payload =
          a.status === 201 ? { rfq_id: 'r1', status: 'filled' } : { error: 'busy', code: a.code ?? 'OVERLOADED', details: null };
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(payload));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' });
    return { client, bodies, close: () => server.close() };
  }
  const body = {
    order: { ...ORDER, deadline_ms: 1_000_000 + 60_000 },
    signature: SIGNATURE,
    idempotency_key: '6a1f0c3e-2b4d-4e6f-9a8b-0c1d2e3f4a5b',
  } as const;
  const overloaded = { status: 503, headers: { 'Retry-After': '2' } };

  it('waits Retry-After (plus up to half of it, at random) after a 503 OVERLOADED and sends the same request again', async () => {
    const s = await serve([overloaded, overloaded, { status: 201 }]);
    const waits: number[] = [];
    const random = [0, 0.999].values();
    try {
      const res = await submitRfq(s.client, body, {
        now: () => 1_000_000,
        sleep: async (ms) => void waits.push(ms),
        random: () => random.next().value!,
      });
      expect(res.response?.status).toBe(201);
      expect(waits).toEqual([2000, 2999]);
      expect(s.bodies).toHaveLength(3);
      expect(new Set(s.bodies).size).toBe(1); // the same body and idempotency key each time
    } finally {
      s.close();
    }
  });

  it('gives up after maxAttempts, when the wait would outlast the order, and on a 503 without Retry-After', async () => {
    const s = await serve([overloaded]);
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    try {
      expect((await submitRfq(s.client, body, { now: () => 1_000_000, sleep, maxAttempts: 2, random: () => 0 })).response?.status).toBe(
        503,
      );
      expect(s.bodies).toHaveLength(2);
      expect((await submitRfq(s.client, body, { now: () => 1_000_000 + 58_000, sleep })).response?.status).toBe(503);
      expect(s.bodies).toHaveLength(3);
      expect(waits).toEqual([2000]);
    } finally {
      s.close();
    }
    const bare = await serve([{ status: 503, code: 'UNAVAILABLE' }]);
    try {
      expect((await submitRfq(bare.client, body, { sleep })).response?.status).toBe(503);
      expect(bare.bodies).toHaveLength(1);
    } finally {
      bare.close();
    }
  });
});
