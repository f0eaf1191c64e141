// The two node calls every chain transaction makes: the receipt of a hash (null is "not served yet", never "not
// mined": docs/settlement.md) and the broadcast of stored bytes, whose refusal is classified (refusals.ts).
import type { Hex, TransactionReceipt } from 'viem';
import type { Chain } from '../../../../adapters/chain/chain.js';
import { classifyRefusal, type Refusal } from './refusals.js';

export async function receiptOf(chain: Chain, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await chain.client.getTransactionReceipt({ hash: hash as Hex });
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  }
}

/**
 * Sends stored signed bytes: 'accepted', or the node's refusal class (`already_known` counts as accepted). A
 * transport failure throws (the caller retries); a refusal never does.
 */
export async function sendRaw(chain: Chain, raw: string): Promise<'accepted' | Exclude<Refusal, 'already_known'>> {
  try {
    await chain.client.sendRawTransaction({ serializedTransaction: raw as Hex });
    return 'accepted';
  } catch (err) {
    const refusal = classifyRefusal(err);
    if (refusal === undefined) throw err;
    return refusal === 'already_known' ? 'accepted' : refusal;
  }
}
