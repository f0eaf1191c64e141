// The market maker's quote signing (spec/asyncapi.yaml "RFQ signing"): a quote in its wire form maps onto
// the EIP-712 `Quote` typed message {rfqId, maker, oddsBps, maxFillMicros, validUntilMs}, signed with the
// domain of GET /v1/rfq/typed-data. `maker` is the wallet the connection authenticated with.
import type { Hex, LocalAccount } from 'viem';
import type { RfqTypedData } from '../../generated/sdk/types.gen.ts';
import { quoteToTyped, RFQ_TYPES } from '../../src/domain/rfq/typed-encoding.ts';
import type { QuoteMessage } from '../../src/domain/rfq/typed-hash.ts';

/** The EIP-712 domain of RFQ orders and quotes (`domain` of GET /v1/rfq/typed-data). */
export type RfqSigningDomain = Omit<RfqTypedData['domain'], 'salt'> & { salt: Hex };

/** The served domain as viem types it (`salt` is 0x + 64 hex). */
export const signingDomain = (d: RfqTypedData['domain']): RfqSigningDomain => ({ ...d, salt: d.salt as Hex });

/**
 * The domain of a development deployment (RFQ_EIP712_NAME, version 1, RFQ_SIGNING_CHAIN_ID and the
 * development RFQ_EIP712_SALT). Every production deployment has its own salt: fetch the domain
 * (fetchTypedData) rather than using this.
 */
export const DEFAULT_RFQ_DOMAIN: RfqSigningDomain = {
  name: 'contest-rfq-service',
  version: '1',
  chainId: 8453,
  salt: '0x8d5d28a7520b2fce0220b78bd608db6c5be909e11e680da4203c9aadfd8911e4',
};

/** What a quote signs, in its JSON form. */
export interface QuoteJson {
  rfq_id: string;
  /** The maker's wallet (the authenticated one). */
  maker: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
}

/** The `Quote` typed message. */
export type { QuoteMessage };

export const QUOTE_TYPES = { Quote: RFQ_TYPES.Quote } as const;

/** JSON quote → `Quote` typed message (the RFQ id as lowercase UUID text). Throws a TypeError on a value the service refuses. */
export function quoteToTypedMessage(q: QuoteJson): QuoteMessage {
  if (typeof q.rfq_id !== 'string' || !/^[0-9a-fA-F-]{36}$/.test(q.rfq_id)) throw new TypeError('rfq_id must be a UUID');
  return quoteToTyped(q); // the service's own encoding (src/domain/rfq/typed-encoding.ts)
}

/** The viem `signTypedData`/`hashTypedData` argument for a quote. */
export function quoteTypedData(domain: RfqSigningDomain, q: QuoteJson) {
  return { domain, types: QUOTE_TYPES, primaryType: 'Quote', message: quoteToTypedMessage(q) } as const;
}

/** Signs a quote with the maker's account: the `signature` of the `quote` message (0x + 130 hex). */
/** The `quote` frame for `q`, signed by `account` (its address is the quote's maker). */
export async function signedQuoteMessage(
  account: LocalAccount,
  domain: RfqSigningDomain,
  q: Omit<QuoteJson, 'maker'> & { client_quote_id?: string | undefined },
) {
  const { client_quote_id, ...fields } = q;
  const signature = await signQuote(account, domain, { ...fields, maker: account.address });
  return { type: 'quote' as const, ...fields, ...(client_quote_id ? { client_quote_id } : {}), signature };
}

export function signQuote(account: LocalAccount, domain: RfqSigningDomain, q: QuoteJson): Promise<Hex> {
  if (q.maker.toLowerCase() !== account.address.toLowerCase()) {
    throw new Error(`quote.maker ${q.maker} is not the signing account ${account.address}: the fill would reject the signature`);
  }
  return account.signTypedData(quoteTypedData(domain, q));
}
