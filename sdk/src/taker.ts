// The RFQ taker's signing helpers: GET /v1/rfq/typed-data gives the EIP-712 domain and types; an order in
// its JSON wire form (snake_case, `up`/`down`, `IOC`/`FOK`) maps field for field onto the `RfqOrder` typed
// message that the taker's wallet signs (the mapping table of that operation in spec/openapi.yaml).
import type { Hex, LocalAccount, TypedDataDomain } from 'viem';
import type { Client } from '../../generated/sdk/client/index.ts';
import { createRfq, getRfqTypedData } from '../../generated/sdk/sdk.gen.ts';
import type { CreateRfqRequest, RfqLeg, RfqOrder, RfqOrderType, RfqTypedData } from '../../generated/sdk/types.gen.ts';
import { orderToTyped } from '../../src/domain/rfq/typed-encoding.ts';
import type { RfqOrderMessage } from '../../src/domain/rfq/typed-hash.ts';

/** A leg's direction and the order type, as the spec names them (generated from spec/openapi.yaml). */
export type Direction = RfqLeg['direction'];
export type OrderType = RfqOrderType;

/** The order as sent in `POST /v1/rfq` (`order`): exactly what is signed. The spec's `RfqOrder` schema. */
export type RfqOrderJson = RfqOrder;

/** The `RfqOrder` typed message. */
export type { RfqOrderMessage };

/** Reads the deployment's typed data (its name, chainId and salt are settings: fetch them, do not hard-code). */
export async function fetchTypedData(client: Client): Promise<RfqTypedData> {
  const res = await getRfqTypedData({ client });
  if (res.error !== undefined || !res.data) {
    throw new Error(`GET /v1/rfq/typed-data failed (${res.response?.status ?? 'no response'}): ${JSON.stringify(res.error)}`);
  }
  return res.data;
}

/** JSON order → `RfqOrder` typed message. Throws a TypeError on a value the service would refuse. */
export function orderToTypedMessage(order: RfqOrderJson): RfqOrderMessage {
  return orderToTyped(order); // the service's own encoding (src/domain/rfq/typed-encoding.ts)
}

/** The viem `signTypedData`/`hashTypedData` argument for an order. */
export function orderTypedData(typedData: RfqTypedData, order: RfqOrderJson) {
  return {
    domain: { ...typedData.domain, salt: typedData.domain.salt as Hex } satisfies TypedDataDomain,
    types: { RfqOrder: typedData.types.RfqOrder, Leg: typedData.types.Leg },
    primaryType: typedData.primary_types.order,
    message: orderToTypedMessage(order) as unknown as Record<string, unknown>,
  };
}

/** Signs an order with the taker's account: the `signature` of `POST /v1/rfq` (0x + 130 hex). */
export function signOrder(account: LocalAccount, typedData: RfqTypedData, order: RfqOrderJson): Promise<Hex> {
  if (order.taker.toLowerCase() !== account.address.toLowerCase()) {
    throw new Error(`order.taker ${order.taker} is not the signing account ${account.address}: the service would refuse the signature`);
  }
  return account.signTypedData(orderTypedData(typedData, order));
}

export interface SubmitRfqOptions {
  /** Requests at most, the first included (default 4). */
  maxAttempts?: number;
  /** Waits (tests); default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock the order's `deadline_ms` is compared with (default Date.now). */
  now?: () => number;
  /** A number in [0, 1) (default Math.random): the wait is Retry-After plus up to half of it more. */
  random?: () => number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `POST /v1/rfq`, honouring `Retry-After`: a 503 (`OVERLOADED`, the process is at capacity and reserved
 * nothing; or `UNAVAILABLE`) is sent again, the same body and idempotency key, after the seconds the
 * service asked for plus a random part of up to half of it (takers refused in the same second do not all come
 * back in the same instant), while the wait still ends before the order's `deadline_ms` and attempts remain.
 * Returns the last answer, as the generated `createRfq` does.
 */
export async function submitRfq(client: Client, body: CreateRfqRequest, opts: SubmitRfqOptions = {}) {
  const maxAttempts = opts.maxAttempts ?? 4;
  const now = opts.now ?? Date.now;
  for (let attempt = 1; ; attempt++) {
    const res = await createRfq({ client, body });
    const retryAfter = Number(res.response?.headers.get('retry-after') ?? NaN);
    if (res.response?.status !== 503 || !Number.isFinite(retryAfter) || attempt >= maxAttempts) return res;
    const waitMs = Math.round(Math.max(0, retryAfter) * 1000 * (1 + 0.5 * (opts.random ?? Math.random)()));
    if (now() + waitMs >= body.order.deadline_ms) return res; // the order would expire before the retry
    await (opts.sleep ?? sleepFor)(waitMs);
  }
}
