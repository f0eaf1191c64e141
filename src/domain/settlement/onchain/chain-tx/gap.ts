// A nonce gap of the settlement wallet (docs/operations.md, "A nonce gap"): a nonce below the lowest stored open
// one with no stored transaction at all, so the node can mine nothing after it (it holds later nonces in its
// "queued" pool forever). It cannot happen by itself here (a nonce is taken and its transaction stored in one
// database transaction), but it does after a database restore that lost rows, a wallet used outside the service
// that a node later forgot, or a hand-edited chain_nonces. Detected by every step of a waiting transaction
// (plan.ts: `nonce_gap`), exported as a gauge, and filled by `npm run chain:fill-nonce-gap`: a zero-value
// transfer from the wallet to itself at each missing nonce, through the one module (drive.ts), so it is stored
// before it is broadcast, replaced within the fee cap if it does not get mined, and recorded once.
import { createHash } from 'node:crypto';
import type { Address } from 'viem';
import type { Em } from '../../../../db/orm.js';
import type { Logger } from '../../../../logger.js';
import type { Chain } from '../../../../adapters/chain/chain.js';
import { stepTx, type ChainSigner, type TxEnv, type TxOwner } from './drive.js';
import type { Step } from './plan.js';
import { repos } from '../../../../db/repos.js';

export interface NonceGap {
  sender: Address;
  /** The first nonce with no stored transaction. */
  from: bigint;
  /** The lowest stored open nonce above it (exclusive end of the missing run, at most). */
  below: bigint;
}

/** The settlement wallet's gap, if it has one now (one count at the latest block, two queries). */
export async function nonceGap(em: Em, chain: Chain): Promise<NonceGap | null> {
  const sender = chain.settlementAddress;
  const count = BigInt(await chain.client.getTransactionCount({ address: sender, blockTag: 'latest' }));
  const repo = repos(em).chainTx;
  const below = await repo.lowestOpenNonce(chain.settings.chainId, sender, count);
  if (below === null) return null;
  const from = await repo.firstUnstoredNonce(chain.settings.chainId, sender, count, below);
  return from === null ? null : { sender, from, below };
}

/** A stable id per (chain, sender, nonce): running the fill twice steps the same filler, never a second one. */
function fillerId(chainId: number, sender: string, nonce: bigint): string {
  const h = createHash('sha256').update(`filler:${chainId}:${sender.toLowerCase()}:${nonce}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The owner of the filler at `nonce`: a zero-value transfer from the wallet to itself. */
export function fillerOwner(chain: Chain, signer: ChainSigner, nonce: bigint, log: Logger): TxOwner {
  const { chainId } = chain.settings;
  const columns = { purpose: 'filler' as const, intentId: fillerId(chainId, signer.address, nonce) };
  const fields = { filler_nonce: nonce.toString(), sender: signer.address };
  return {
    columns,
    signer,
    fields,
    fixedNonce: nonce,
    spec: () => ({ to: signer.address, value: 0n, gas: 21_000n }),
    attempts: (em) => repos(em).chainTx.attempts(columns),
    async lockToSign(tx, seen) {
      const repo = repos(tx).chainTx;
      await repo.lockNonceRow(chainId, signer.address);
      const mine = await repo.attempts(columns);
      if (mine.length !== seen.length || (await repo.atNonce(chainId, signer.address, nonce)) !== mine.length) return null;
      return { attempt: mine.length };
    },
    async onReview() {
      log.error(fields, 'nonce-gap filler: the nonce is used but no receipt is served; check the chain');
    },
  };
}

/**
 * One pass of the fill: signs (or steps) a filler at every missing nonce of the settlement wallet's gap; returns the
 * steps taken. Call it again until `nonceGap` answers null and every filler is recorded.
 */
export async function fillNonceGapOnce(em: Em, env: TxEnv, log: Logger): Promise<Array<{ nonce: bigint; step: Step }>> {
  const { chain } = env;
  const gap = await nonceGap(em, chain);
  const out: Array<{ nonce: bigint; step: Step }> = [];
  const repo = repos(em).chainTx;
  const count = BigInt(await chain.client.getTransactionCount({ address: chain.settlementAddress, blockTag: 'latest' }));
  const below = gap?.below ?? count;
  // The fillers already signed and not yet recorded (in the mempool, or mined and waiting for confirmations), then
  // every missing nonce of the gap that has none yet.
  const signed = await repo.unrecordedFillerNonces(chain.settings.chainId, chain.settlementAddress);
  for (const n of signed) out.push({ nonce: n, step: await stepTx(em, env, fillerOwner(chain, chain.account, n, log)) });
  for (let n = count; n < below; n++) {
    if (signed.includes(n)) continue;
    const owner = fillerOwner(chain, chain.account, n, log);
    const mine = (await owner.attempts(em)).length;
    if (!mine && (await repo.atNonce(chain.settings.chainId, chain.settlementAddress, n)) > 0) continue; // a real transaction holds it
    out.push({ nonce: n, step: await stepTx(em, env, owner) });
  }
  return out;
}
