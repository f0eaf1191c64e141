// The EIP-712 encoding of RFQ trading shared by the service and the SDK (sdk/src/taker.ts, sdk/src/maker.ts
// import it): the wire forms of an order and a quote (snake_case, JSON integers), the types, and the mapping
// from wire form to typed message (spec/openapi.yaml getRfqTypedData). Pure, and importing nothing at run
// time, so the SDK's build (sdk/tsconfig.build.json) compiles it with no service code. Hashing and
// recovery stay in src/domain/rfq/typed-hash.ts and typed-data.ts.
import type { Address } from 'viem';
import type { QuoteMessage, RfqOrderMessage } from './typed-hash.js';

export type Direction = 'up' | 'down';
export type OrderType = 'IOC' | 'FOK';

/** The order as the taker sends it in `POST /v1/rfq` (`order`), field for field what is signed. */
export interface RfqOrderJson {
  taker: string;
  legs: Array<{ market_id: number; direction: Direction }>;
  stake_micros: number;
  min_odds_bps: number;
  order_type: OrderType;
  nonce: number;
  deadline_ms: number;
}

/** What a maker signs for a quote; `maker` is the authenticated wallet of the connection, not a frame field. */
export interface QuoteJson {
  rfq_id: string;
  maker: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
}

export const RFQ_EIP712_VERSION = '1';

// No verifyingContract: there is no contract. The domain's salt (RFQ_EIP712_SALT) is per deployment, so an
// order signed for staging is not valid in production (docs/fill-path.md).
export const RFQ_TYPES = {
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
} as const;

export const RFQ_PRIMARY_TYPES = { order: 'RfqOrder', quote: 'Quote' } as const;

const DIRECTION_CODE: Record<Direction, number> = { up: 0, down: 1 };
const ORDER_TYPE_CODE: Record<OrderType, number> = { IOC: 1, FOK: 2 };
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** JSON order → typed message. Legs keep their order; addresses are lowercased (same encoding, no checksum trap). */
export function orderToTyped(o: RfqOrderJson): RfqOrderMessage {
  return {
    taker: address(o.taker, 'taker'),
    legs: o.legs.map((l, i) => ({
      marketId: uint(l.market_id, `legs[${i}].market_id`),
      direction: code(DIRECTION_CODE, l.direction, `legs[${i}].direction`),
    })),
    stakeMicros: uint(o.stake_micros, 'stake_micros'),
    minOddsBps: Number(uint(o.min_odds_bps, 'min_odds_bps')),
    orderType: code(ORDER_TYPE_CODE, o.order_type, 'order_type'),
    nonce: uint(o.nonce, 'nonce'),
    deadlineMs: uint(o.deadline_ms, 'deadline_ms'),
  };
}

export function orderFromTyped(m: RfqOrderMessage): RfqOrderJson {
  return {
    taker: m.taker,
    legs: m.legs.map((l) => ({ market_id: Number(l.marketId), direction: decode(DIRECTION_CODE, l.direction, 'direction') })),
    stake_micros: Number(m.stakeMicros),
    min_odds_bps: m.minOddsBps,
    order_type: decode(ORDER_TYPE_CODE, m.orderType, 'orderType'),
    nonce: Number(m.nonce),
    deadline_ms: Number(m.deadlineMs),
  };
}

/** JSON quote → typed message. The RFQ id is hashed as its lowercase UUID text, as the service issues it. */
export function quoteToTyped(q: QuoteJson): QuoteMessage {
  if (typeof q.rfq_id !== 'string') throw new TypeError('rfq_id must be a string');
  return {
    rfqId: q.rfq_id.toLowerCase(),
    maker: address(q.maker, 'maker'),
    oddsBps: Number(uint(q.odds_bps, 'odds_bps')),
    maxFillMicros: uint(q.max_fill_micros, 'max_fill_micros'),
    validUntilMs: uint(q.valid_until_ms, 'valid_until_ms'),
  };
}

export function quoteFromTyped(m: QuoteMessage): QuoteJson {
  return {
    rfq_id: m.rfqId,
    maker: m.maker,
    odds_bps: m.oddsBps,
    max_fill_micros: Number(m.maxFillMicros),
    valid_until_ms: Number(m.validUntilMs),
  };
}

export function address(v: unknown, field: string): Address {
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw new TypeError(`${field} must be a 0x-prefixed 20-byte hex address`);
  return v.toLowerCase() as Address;
}

export function uint(v: unknown, field: string): bigint {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TypeError(`${field} must be a non-negative integer <= 2^53-1`);
  return BigInt(v);
}

export function code<K extends string>(table: Record<K, number>, v: unknown, field: string): number {
  if (typeof v !== 'string' || !Object.hasOwn(table, v)) throw new TypeError(`${field} must be one of ${Object.keys(table).join(', ')}`);
  return table[v as K];
}

function decode<K extends string>(table: Record<K, number>, n: number, field: string): K {
  const hit = (Object.keys(table) as K[]).find((k) => table[k] === n);
  if (hit === undefined) throw new TypeError(`${field} code ${n} is unknown`);
  return hit;
}
