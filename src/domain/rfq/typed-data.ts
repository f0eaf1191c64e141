// EIP-712 typed data of RFQ trading (spec/openapi.yaml getRfqTypedData): the taker's RfqOrder and the market maker's Quote.
// Pure apart from viem's hashing and the native recovery (src/domain/signatures/recover.ts). The JSON shapes are the wire forms (snake_case, JSON
// integers); the typed messages are what gets hashed. A bad signature is a result, never a throw.
import type { Address, Hex } from 'viem';
import { orderHash, quoteHash, type QuoteMessage, type RfqDomain, type RfqOrderMessage } from './typed-hash.js';
import { normalizeSignature, recoverSigner } from '../signatures/recover.js';
import {
  orderToTyped,
  quoteToTyped,
  RFQ_EIP712_VERSION,
  RFQ_PRIMARY_TYPES,
  RFQ_TYPES,
  type QuoteJson,
  type RfqOrderJson,
} from './typed-encoding.js';

export { normalizeSignature } from '../signatures/recover.js';
export * from './typed-encoding.js';

export type { QuoteMessage, RfqDomain, RfqOrderMessage };

export function rfqDomain(name: string, chainId: number, salt: Hex): RfqDomain {
  return { name, version: RFQ_EIP712_VERSION, chainId, salt };
}

/** The domain of a deployment's RFQ settings. */
export const rfqDomainOf = (s: { eip712Name: string; signingChainId: number; eip712Salt: Hex }) =>
  rfqDomain(s.eip712Name, s.signingChainId, s.eip712Salt);

/** The body of `GET /v1/rfq/typed-data`. */
export function typedDataDocument(domain: RfqDomain) {
  return { domain, types: RFQ_TYPES, primary_types: RFQ_PRIMARY_TYPES };
}

export function orderTypedData(domain: RfqDomain, order: RfqOrderJson) {
  return { domain, types: RFQ_TYPES, primaryType: RFQ_PRIMARY_TYPES.order, message: orderToTyped(order) } as const;
}

export function quoteTypedData(domain: RfqDomain, quote: QuoteJson) {
  return { domain, types: RFQ_TYPES, primaryType: RFQ_PRIMARY_TYPES.quote, message: quoteToTyped(quote) } as const;
}

/** The EIP-712 digest the taker signs (throws on a malformed order: callers validate first). */
export function orderDigest(domain: RfqDomain, order: RfqOrderJson): Hex {
  return orderHash(domain, orderToTyped(order));
}

export function quoteDigest(domain: RfqDomain, quote: QuoteJson): Hex {
  return quoteHash(domain, quoteToTyped(quote));
}

export type SignatureFailure = 'malformed_signature' | 'malformed_message' | 'signer_mismatch';
/** On success also the digest that was signed (store it as the order hash: no second hashing). */
export type Recovery = { ok: true; address: Address; digest: Hex } | { ok: false; reason: Exclude<SignatureFailure, 'signer_mismatch'> };
export type Verification = { ok: true; address: Address; digest: Hex } | { ok: false; reason: SignatureFailure };

export function recoverOrderSigner(domain: RfqDomain, order: RfqOrderJson, signature: unknown): Recovery {
  return recover(() => orderDigest(domain, order), signature);
}

export function recoverQuoteSigner(domain: RfqDomain, quote: QuoteJson, signature: unknown): Recovery {
  return recover(() => quoteDigest(domain, quote), signature);
}

/** True result only when the signature recovers to `order.taker`. */
export function verifyOrderSignature(domain: RfqDomain, order: RfqOrderJson, signature: unknown): Verification {
  return matchSigner(recoverOrderSigner(domain, order, signature), order.taker);
}

/** True result only when the signature recovers to `quote.maker`. */
export function verifyQuoteSignature(domain: RfqDomain, quote: QuoteJson, signature: unknown): Verification {
  return matchSigner(recoverQuoteSigner(domain, quote, signature), quote.maker);
}

function recover(hash: () => Hex, signature: unknown): Recovery {
  const sig = normalizeSignature(signature);
  if (!sig) return { ok: false, reason: 'malformed_signature' };
  let digest: Hex;
  try {
    digest = hash(); // validates ranges and addresses while hashing (src/domain/rfq/typed-hash.ts)
  } catch {
    return { ok: false, reason: 'malformed_message' };
  }
  try {
    // recoverTypedDataAddress is exactly this, but would hash a second time (and recover in pure JS).
    return { ok: true, address: recoverSigner(digest, sig), digest };
  } catch {
    // r or s out of range, high s (EIP-2), point not on the curve
    return { ok: false, reason: 'malformed_signature' };
  }
}

function matchSigner(r: Recovery, who: string): Verification {
  if (!r.ok) return r;
  return r.address.toLowerCase() === String(who).toLowerCase() ? r : { ok: false, reason: 'signer_mismatch' };
}
