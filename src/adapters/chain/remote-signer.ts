// The settlement wallet's signer (docs/settlement.md, "Keys"): a local key (SETTLEMENT_PRIVATE_KEY), or an external
// signer (SETTLEMENT_SIGNER_URL) speaking JSON-RPC eth_signTransaction for SETTLEMENT_ADDRESS, as Web3Signer's Eth1
// mode, Clef or a node holding the account do, so the service never sees the key. What a remote signer answers is
// not trusted: the signed bytes must parse, be signed by SETTLEMENT_ADDRESS, and carry exactly the transaction
// asked for (chain, nonce, recipient, value, data, gas, fees); anything else is a refusal. A signer that does not
// answer, errs or refuses throws SignerUnavailable: the chain-transaction module (src/domain/settlement/onchain/chain-tx/drive.ts) then stores
// nothing, and the deposit or withdrawal waits (pending_reason `signer`), never fails for it.
import {
  getAddress,
  parseTransaction,
  recoverTransactionAddress,
  toHex,
  type Address,
  type Hex,
  type TransactionSerializableEIP1559,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Who signs: a local key (viem's account) or an external signer speaking eth_signTransaction. */
export interface ChainSigner {
  readonly address: Address;
  signTransaction(tx: TransactionSerializableEIP1559): Promise<Hex>;
}

/** The signer did not sign (down, timed out, refused, or answered something else than asked). */
export class SignerUnavailable extends Error {
  constructor(
    readonly kind: 'down' | 'refused' | 'mismatch' | 'no_key',
    message: string,
  ) {
    super(message);
    this.name = 'SignerUnavailable';
  }
}

/** How long one eth_signTransaction may take. */
export const SIGNER_TIMEOUT_MS = 10_000;

const hex = (n: bigint | number) => toHex(n);

async function call(
  url: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ result?: unknown; error?: { code?: number; message?: string } }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new SignerUnavailable('down', `the signer did not answer (${(err as Error).name})`);
  }
  if (!res.ok) throw new SignerUnavailable(res.status >= 500 ? 'down' : 'refused', `the signer answered HTTP ${res.status}`);
  try {
    return (await res.json()) as { result?: unknown; error?: { code?: number; message?: string } };
  } catch {
    throw new SignerUnavailable('down', 'the signer answered something other than JSON');
  }
}

/** The signed bytes are the transaction asked for, signed by `address`. */
async function checkSigned(raw: Hex, tx: TransactionSerializableEIP1559, address: Address): Promise<void> {
  let parsed: ReturnType<typeof parseTransaction>;
  let signer: Address;
  try {
    parsed = parseTransaction(raw);
    signer = await recoverTransactionAddress({ serializedTransaction: raw as never });
  } catch {
    throw new SignerUnavailable('mismatch', 'the signer answered bytes that are not a signed transaction');
  }
  const same =
    parsed.type === 'eip1559' &&
    parsed.chainId === tx.chainId &&
    parsed.nonce === tx.nonce &&
    (parsed.to ? getAddress(parsed.to) : null) === (tx.to ? getAddress(tx.to) : null) &&
    (parsed.value ?? 0n) === (tx.value ?? 0n) &&
    (parsed.data ?? '0x').toLowerCase() === (tx.data ?? '0x').toLowerCase() &&
    parsed.gas === tx.gas &&
    parsed.maxFeePerGas === tx.maxFeePerGas &&
    parsed.maxPriorityFeePerGas === tx.maxPriorityFeePerGas;
  if (!same) throw new SignerUnavailable('mismatch', 'the signer signed a different transaction than the one asked for');
  if (signer !== address) throw new SignerUnavailable('mismatch', `the signer signed as ${signer}, not SETTLEMENT_ADDRESS`);
}

/** eth_signTransaction for `address` at `url`; every failure is a SignerUnavailable. */
export function remoteSigner(url: string, address: Address, timeoutMs = SIGNER_TIMEOUT_MS): ChainSigner {
  let id = 0;
  return {
    address,
    async signTransaction(tx) {
      const params = {
        from: address,
        to: tx.to,
        gas: hex(tx.gas!),
        maxFeePerGas: hex(tx.maxFeePerGas!),
        maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas!),
        nonce: hex(tx.nonce!),
        value: hex(tx.value ?? 0n),
        data: tx.data ?? '0x',
        chainId: hex(tx.chainId),
        type: '0x2',
      };
      const answer = await call(url, { jsonrpc: '2.0', id: ++id, method: 'eth_signTransaction', params: [params] }, timeoutMs);
      if (answer.error)
        throw new SignerUnavailable('refused', `the signer refused: ${String(answer.error.message ?? answer.error.code).slice(0, 200)}`);
      // Web3Signer and nodes answer the raw bytes; some signers answer { raw, tx }.
      const raw = typeof answer.result === 'string' ? answer.result : (answer.result as { raw?: unknown } | undefined)?.raw;
      if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(raw))
        throw new SignerUnavailable('mismatch', 'the signer answered no signed transaction');
      await checkSigned(raw as Hex, tx, address);
      return raw as Hex;
    },
  };
}

/** The settlement wallet's signer of these settings: the key, the remote signer, or one that never signs (no key here). */
export function settlementSigner(s: { settlementAddress: Address; settlementKey?: { reveal(): string }; signerUrl?: string }): ChainSigner {
  if (s.settlementKey) return privateKeyToAccount(s.settlementKey.reveal() as Hex);
  if (s.signerUrl) return remoteSigner(s.signerUrl, getAddress(s.settlementAddress));
  return {
    address: getAddress(s.settlementAddress),
    signTransaction: () =>
      Promise.reject(new SignerUnavailable('no_key', 'this process holds no settlement key and no SETTLEMENT_SIGNER_URL')),
  };
}
