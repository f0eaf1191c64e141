// The EIP-712 digests of RfqOrder and Quote computed directly (EIP-712 "encodeData"), with the type hashes
// computed once and each deployment's domain separator cached: about a quarter of viem's generic
// hashTypedData, which re-derives the types on every call. The digests are identical (the property test
// src/domain/rfq/typed-hash.test.ts compares them with hashTypedData over random orders, quotes and
// domains). Inputs are the typed messages of src/domain/rfq/typed-data.ts (already validated there);
// values outside their Solidity type still throw here, as viem's would.
import { keccak256, toHex, type Address, type Hex } from 'viem';

// The typed messages (validated from the wire by src/domain/rfq/typed-data.ts, which re-exports them).
export interface RfqDomain {
  name: string;
  version: '1';
  chainId: number;
  /** The deployment's salt (RFQ_EIP712_SALT): a signature for one deployment is refused by every other. */
  salt: Hex;
}

export interface RfqOrderMessage {
  taker: Address;
  legs: Array<{ marketId: bigint; direction: number }>;
  stakeMicros: bigint;
  minOddsBps: number;
  orderType: number;
  nonce: bigint;
  deadlineMs: bigint;
}

export interface QuoteMessage {
  rfqId: string;
  maker: Address;
  oddsBps: number;
  maxFillMicros: bigint;
  validUntilMs: bigint;
}

const typeHash = (t: string) => keccak256(toHex(t));
const DOMAIN_TYPEHASH = typeHash('EIP712Domain(string name,string version,uint256 chainId,bytes32 salt)');
const LEG_TYPEHASH = typeHash('Leg(uint64 marketId,uint8 direction)');
const ORDER_TYPEHASH = typeHash(
  'RfqOrder(address taker,Leg[] legs,uint64 stakeMicros,uint32 minOddsBps,uint8 orderType,uint64 nonce,uint64 deadlineMs)Leg(uint64 marketId,uint8 direction)',
);
const QUOTE_TYPEHASH = typeHash('Quote(string rfqId,address maker,uint32 oddsBps,uint64 maxFillMicros,uint64 validUntilMs)');

/** One 32-byte ABI word of an unsigned integer of `bits` bits (throws outside its range). */
function uintWord(v: bigint | number, bits: number): string {
  const n = BigInt(v);
  if (n < 0n || n >= 1n << BigInt(bits)) throw new RangeError(`${n} is not a uint${bits}`);
  return n.toString(16).padStart(64, '0');
}
const addressWord = (a: string) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new TypeError(`${a} is not an address`);
  return a.slice(2).toLowerCase().padStart(64, '0');
};
const word = (h: Hex) => h.slice(2);
const hashWords = (...words: string[]) => keccak256(`0x${words.join('')}`);

const separators = new Map<string, string>();
function domainSeparator(d: RfqDomain): string {
  const key = `${d.name}\n${d.version}\n${d.chainId}\n${d.salt}`;
  let s = separators.get(key);
  if (!s) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(d.salt)) throw new TypeError('the domain salt is not 32 bytes');
    s = word(
      hashWords(
        word(DOMAIN_TYPEHASH),
        word(keccak256(toHex(d.name))),
        word(keccak256(toHex(d.version))),
        uintWord(d.chainId, 256),
        d.salt.slice(2).toLowerCase(),
      ),
    );
    if (separators.size > 16) separators.clear();
    separators.set(key, s);
  }
  return s;
}

const digest = (d: RfqDomain, structHash: Hex) => keccak256(`0x1901${domainSeparator(d)}${word(structHash)}`);

export function orderHash(d: RfqDomain, m: RfqOrderMessage): Hex {
  const legs = m.legs.map((l) => word(hashWords(word(LEG_TYPEHASH), uintWord(l.marketId, 64), uintWord(l.direction, 8))));
  const struct = hashWords(
    word(ORDER_TYPEHASH),
    addressWord(m.taker),
    word(keccak256(`0x${legs.join('')}`)),
    uintWord(m.stakeMicros, 64),
    uintWord(m.minOddsBps, 32),
    uintWord(m.orderType, 8),
    uintWord(m.nonce, 64),
    uintWord(m.deadlineMs, 64),
  );
  return digest(d, struct);
}

export function quoteHash(d: RfqDomain, m: QuoteMessage): Hex {
  const struct = hashWords(
    word(QUOTE_TYPEHASH),
    word(keccak256(toHex(m.rfqId))),
    addressWord(m.maker),
    uintWord(m.oddsBps, 32),
    uintWord(m.maxFillMicros, 64),
    uintWord(m.validUntilMs, 64),
  );
  return digest(d, struct);
}
