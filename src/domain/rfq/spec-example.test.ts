// The worked RFQ signing example is published twice (spec/openapi.yaml getRfqTypedData and
// spec/asyncapi.yaml info.description): both must be what this code computes, byte for byte.
import { RFQ_EIP712_SALT_DEV } from '../../constants.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { privateKeyToAccount } from 'viem/accounts';
import {
  orderDigest,
  orderTypedData,
  quoteDigest,
  quoteTypedData,
  rfqDomain,
  typedDataDocument,
  verifyOrderSignature,
  verifyQuoteSignature,
} from './typed-data.js';

const spec = (name: string) => parse(readFileSync(fileURLToPath(new URL(`../../../spec/${name}`, import.meta.url)), 'utf8'));
const openapi = spec('openapi.yaml');
const asyncapi = spec('asyncapi.yaml');
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);

function example(description: string, heading: string) {
  const block = new RegExp(`${heading}[\\s\\S]*?\`\`\`text\\n([\\s\\S]*?)\`\`\``).exec(description)?.[1];
  if (!block) throw new Error(`no text block under ${heading}`);
  const field = (label: string) => {
    const m = new RegExp(`^\\s*${label} {2,}(\\S.*)$`, 'm').exec(block);
    if (!m) throw new Error(`example has no "${label}" line`);
    return m[1]!.trim();
  };
  return {
    key: field('private key') as `0x${string}`,
    address: field('address'),
    order: JSON.parse(field('order')),
    orderDigest: field('order digest'),
    orderSig: field('order sig'),
    quote: JSON.parse(field('quote')),
    quoteDigest: field('quote digest'),
    quoteSig: field('quote sig'),
  };
}

const published = [
  ['openapi getRfqTypedData', example(openapi.paths['/v1/rfq/typed-data'].get.description, '## Worked example')],
  ['asyncapi info', example(asyncapi.info.description, '### Worked RFQ signing example')],
] as const;

describe.each(published)('worked RFQ signing example in %s', (_where, ex) => {
  it('the key is the address; digests and signatures are what the code computes', async () => {
    const account = privateKeyToAccount(ex.key);
    expect(account.address).toBe(ex.address);
    expect(orderDigest(domain, ex.order)).toBe(ex.orderDigest);
    expect(await account.signTypedData(orderTypedData(domain, ex.order))).toBe(ex.orderSig);
    expect(await verifyOrderSignature(domain, ex.order, ex.orderSig)).toEqual({ ok: true, address: ex.address, digest: ex.orderDigest });
    expect(quoteDigest(domain, ex.quote)).toBe(ex.quoteDigest);
    expect(await account.signTypedData(quoteTypedData(domain, ex.quote))).toBe(ex.quoteSig);
    expect(await verifyQuoteSignature(domain, ex.quote, ex.quoteSig)).toEqual({ ok: true, address: ex.address, digest: ex.quoteDigest });
  });
});

it('the published 200 example of getRfqTypedData is the default typed data', () => {
  const published200 = openapi.paths['/v1/rfq/typed-data'].get.responses['200'].content['application/json'].example;
  expect(published200).toEqual(JSON.parse(JSON.stringify(typedDataDocument(domain))));
});
