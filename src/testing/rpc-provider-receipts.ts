// Receipt hiding for the provider stand-in (src/testing/rpc-provider.ts): what a load-balanced provider does when
// the node that answers has not indexed the block yet. `eth_getTransactionReceipt` answers `null` for a mined
// transaction until `forMs` after the proxy first saw it mined, then the real receipt (issue 39: a withdrawal
// paid on chain was refunded because a receipt was `null`).
//
// "First seen mined" is the earliest of: the first time the node answered a receipt for it through the proxy,
// and the first time the proxy saw a head (`eth_blockNumber`, `eth_getBlockByNumber`) at or above its block. A
// service that polls the head every second therefore starts the clock within a second of the block.
//
// While hidden: `eth_getBlockReceipts` of its block answers `null` (the node has not indexed that block);
// `eth_getTransactionByHash` keeps answering the mined transaction by default (`transactions: 'pass'`: the
// transaction index is current, only the receipt index lags, which is what issue 39 reproduced), or with
// `transactions: 'pending'` answers it as a node that holds it only in its mempool (blockHash, blockNumber and
// transactionIndex null). Everything else passes through.
import { quantity, type Behaviour, type CallContext, type RpcCall, type RpcReply } from './rpc-provider-types.js';

export interface HideReceiptsOptions {
  /** How long (ms) after a transaction is first seen mined its receipt stays hidden. */
  forMs: number;
  /** Only these transaction hashes (any case); omitted: every transaction. */
  hashes?: readonly string[];
  /** What `eth_getTransactionByHash` answers meanwhile (default `pass`). */
  transactions?: 'pass' | 'pending';
}

interface Rule {
  forMs: number;
  hashes: Set<string> | undefined;
  transactions: 'pass' | 'pending';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

export class ReceiptHiding implements Behaviour {
  private rule: Rule | undefined;
  private readonly firstSeen = new Map<string, number>();
  /** Heads the proxy has seen, ascending, with the time each was first seen. */
  private readonly heads: Array<{ block: bigint; at: number }> = [];

  set(opts: HideReceiptsOptions): void {
    if (!Number.isFinite(opts.forMs) || opts.forMs < 0) throw new Error(`hideReceipts: forMs must be a duration in ms, got ${opts.forMs}`);
    this.rule = {
      forMs: opts.forMs,
      hashes: opts.hashes ? new Set(opts.hashes.map((h) => h.toLowerCase())) : undefined,
      transactions: opts.transactions ?? 'pass',
    };
  }

  clear(): void {
    this.rule = undefined;
  }

  /** When the proxy first saw `hash` mined (ms), if it has. */
  seenMinedAt(hash: string): number | undefined {
    return this.firstSeen.get(hash.toLowerCase());
  }

  after(call: RpcCall, reply: RpcReply, ctx: CallContext): RpcReply {
    const result = reply.result;
    switch (call.method) {
      case 'eth_blockNumber':
        this.noteHead(quantity(result), ctx.now);
        return reply;
      case 'eth_getBlockByNumber':
        if (isObj(result)) this.noteHead(quantity(result.number), ctx.now);
        return reply;
      case 'eth_getTransactionReceipt':
        return isObj(result) && this.hidden(result, ctx.now) ? { ...reply, result: null } : reply;
      case 'eth_getBlockReceipts':
        return Array.isArray(result) && result.some((r) => isObj(r) && this.hidden(r, ctx.now)) ? { ...reply, result: null } : reply;
      case 'eth_getTransactionByHash':
        if (
          this.rule?.transactions === 'pending' &&
          isObj(result) &&
          result.blockNumber &&
          this.hidden({ ...result, transactionHash: result.hash }, ctx.now)
        )
          return { ...reply, result: { ...result, blockHash: null, blockNumber: null, transactionIndex: null } };
        return reply;
      default:
        return reply;
    }
  }

  /** Records the sighting of a mined transaction (always, so a rule set later counts from the real sighting) and says whether it is hidden now. */
  private hidden(mined: Obj, now: number): boolean {
    const hash = typeof mined.transactionHash === 'string' ? mined.transactionHash.toLowerCase() : undefined;
    const block = quantity(mined.blockNumber);
    if (!hash || block === undefined) return false;
    let at = this.firstSeen.get(hash);
    if (at === undefined) {
      at = Math.min(now, this.headSeenAt(block) ?? now);
      this.firstSeen.set(hash, at);
    }
    const rule = this.rule;
    if (!rule || (rule.hashes && !rule.hashes.has(hash))) return false;
    return now < at + rule.forMs;
  }

  private noteHead(block: bigint | undefined, at: number): void {
    if (block === undefined) return;
    const last = this.heads[this.heads.length - 1];
    if (!last || block > last.block) this.heads.push({ block, at });
  }

  /** The first time the proxy saw a head at or above `block`. */
  private headSeenAt(block: bigint): number | undefined {
    return this.heads.find((h) => h.block >= block)?.at;
  }
}
