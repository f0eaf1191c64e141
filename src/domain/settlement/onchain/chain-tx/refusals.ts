// What a node's refusal of a broadcast means (docs/settlement.md, "Broadcast refusals"). The texts are geth's
// txpool errors (core/txpool/errors.go, core/txpool/legacypool), which Base's op-geth, Erigon-style providers and
// anvil answer in the same words; a transport failure is not a refusal (the caller retries).
//   already_known       the node holds these exact bytes: fine
//   nonce_too_low       the nonce is used on chain: by these bytes or by another transaction (nonce-evidence.ts decides)
//   underpriced         a replacement that does not raise the fees enough, or a fee below the node's floor: it waits
//   insufficient_funds  the sender cannot pay gas * maxFee + value (+ L1 fee): it waits for gas (pending_reason gas)
//   other               anything else (intrinsic gas, oversized, gapped nonce in a full pool...): logged as an error
import { shortReason } from '../../../../adapters/chain/chain.js';

export type Refusal = 'already_known' | 'nonce_too_low' | 'underpriced' | 'insufficient_funds' | 'other';

const RULES: ReadonlyArray<[Refusal, RegExp]> = [
  ['already_known', /already known|known transaction|already imported|already in (the )?(mem)?pool/i],
  ['nonce_too_low', /nonce too low|nonce has already been used|NonceTooLow|OldNonce/i],
  ['underpriced', /underpriced|fee too low|max fee per gas less than block base fee|feecap.*below|tip.*below/i],
  ['insufficient_funds', /insufficient funds|InsufficientFunds|funds for gas \* price \+ value|not enough (funds|balance)/i],
];

const TRANSPORT =
  /fetch failed|timed out|timeout|ECONNREFUSED|ECONNRESET|socket|network|HTTP request failed|429|Too Many Requests|rate limit/i;

/**
 * How loudly a refusal of stored bytes is logged. After a restart the service broadcasts its stored bytes again,
 * and a node answers "already known" or "nonce too low" for a transaction it already holds or mined: expected,
 * `info` (the receipts and nonce-evidence.ts decide what happened), never a warning. Underpriced and insufficient
 * funds are waits with their own pending_reason and gauge (`info`); an unknown refusal is an `error`.
 */
export function refusalLogLevel(refusal: Refusal): 'info' | 'error' {
  return refusal === 'other' ? 'error' : 'info';
}

/** The refusal class of a sendRawTransaction error; undefined when the node was not reached (retry). */
export function classifyRefusal(err: unknown): Refusal | undefined {
  const reason = `${shortReason(err)} ${(err as { details?: string }).details ?? ''}`;
  for (const [kind, re] of RULES) if (re.test(reason)) return kind;
  if (TRANSPORT.test(reason)) return undefined;
  return 'other';
}
