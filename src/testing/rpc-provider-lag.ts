// A lagging backend for the provider stand-in (src/testing/rpc-provider.ts): the provider load-balances over nodes,
// `eth_blockNumber` comes from one at the true head H, every other read from one that has imported blocks only up
// to H - K (K = `blocks`). That second node answers as a real one does:
//   eth_getLogs                    `[]` for the part of the range above H - K (geth returns an empty list for a
//                                  block it does not have, and Infura mimics it: support.infura.io, "Fetching for
//                                  block ranges events with eth_getLogs"; go-ethereum issue 24078)
//   eth_getTransactionReceipt      `null` for a transaction mined above H - K
//   eth_getTransactionByHash       the transaction as pending (blockHash, blockNumber, transactionIndex null): the
//                                  node has it from the mempool, not in a block
//   eth_getBlockByNumber/ByHash, eth_getBlockReceipts   `null` for a block above H - K; `latest` is H - K
//   eth_call, eth_getTransactionCount, eth_getBalance, eth_getCode, eth_getStorageAt, eth_estimateGas
//                                  at `latest` (or no block): the state at H - K (older state, silently); at a
//                                  block number above H - K: -32000 "header not found" (geth's answer, which
//                                  load-balanced providers pass on); at `pending`: passed through (providers send
//                                  pending-state reads and transactions to nodes that share the mempool)
// Everything else (eth_blockNumber, eth_sendRawTransaction, eth_chainId, fees) passes through.
import { headerNotFoundReply } from './rpc-provider-errors.js';
import { quantity, toHex, type Before, type Behaviour, type CallContext, type RpcCall, type RpcReply } from './rpc-provider-types.js';

/** Methods that read state at a block, and the index of their block parameter. */
const STATE_READS: Record<string, number> = {
  eth_call: 1,
  eth_getTransactionCount: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_estimateGas: 1,
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;
/** A block-number parameter as a number; a 32-byte block hash is not one. */
const blockNumber = (v: unknown) => (typeof v === 'string' && v.length === 66 ? undefined : quantity(v));
const isHash = (v: unknown) => typeof v === 'string' && v.length === 66;

export class Lag implements Behaviour {
  private blocks = 0n;

  set(blocks: number): void {
    if (!Number.isInteger(blocks) || blocks < 0) throw new Error(`lag: blocks must be a whole number >= 0, got ${blocks}`);
    this.blocks = BigInt(blocks);
  }

  /** The newest block the answering node has imported. */
  private async visible(ctx: CallContext): Promise<bigint> {
    const head = await ctx.head();
    return head > this.blocks ? head - this.blocks : 0n;
  }

  async before(call: RpcCall, ctx: CallContext): Promise<Before> {
    if (this.blocks === 0n) return undefined;
    const params = call.params ?? [];
    const at = STATE_READS[call.method];
    if (at !== undefined) {
      const visible = await this.visible(ctx);
      const tag = params[at];
      const block = isObj(tag) ? tag.blockNumber : tag;
      if ((isObj(tag) && tag.blockHash !== undefined) || isHash(tag)) return undefined;
      if (block === 'pending' || block === 'earliest' || block === 'safe' || block === 'finalized') return undefined;
      const n = blockNumber(block);
      if (n !== undefined) return n > visible ? { reply: headerNotFoundReply(call) } : undefined;
      const rewritten = [...params];
      while (rewritten.length < at) rewritten.push(undefined);
      rewritten[at] = toHex(visible); // `latest` or absent: this node's latest
      return { call: { ...call, params: rewritten } };
    }
    if (call.method === 'eth_getBlockByNumber' || call.method === 'eth_getBlockReceipts') {
      if (isHash(params[0])) return undefined;
      const visible = await this.visible(ctx);
      const n = blockNumber(params[0]);
      if (n !== undefined) return n > visible ? { reply: { jsonrpc: '2.0', id: call.id ?? null, result: null } } : undefined;
      if (params[0] === 'latest' || params[0] === undefined) return { call: { ...call, params: [toHex(visible), ...params.slice(1)] } };
    }
    return undefined;
  }

  async after(call: RpcCall, reply: RpcReply, ctx: CallContext): Promise<RpcReply> {
    if (this.blocks === 0n || reply.result === null || reply.result === undefined) return reply;
    const above = async (n: unknown) => {
      const q = quantity(n);
      return q !== undefined && q > (await this.visible(ctx));
    };
    const result = reply.result;
    switch (call.method) {
      case 'eth_getLogs': {
        if (!Array.isArray(result)) return reply;
        const visible = await this.visible(ctx);
        return { ...reply, result: result.filter((l: Obj) => (quantity(l.blockNumber) ?? 0n) <= visible) };
      }
      case 'eth_getTransactionReceipt':
        return isObj(result) && (await above(result.blockNumber)) ? { ...reply, result: null } : reply;
      case 'eth_getTransactionByHash':
        return isObj(result) && (await above(result.blockNumber))
          ? { ...reply, result: { ...result, blockHash: null, blockNumber: null, transactionIndex: null } }
          : reply;
      case 'eth_getBlockByHash':
        return isObj(result) && (await above(result.number)) ? { ...reply, result: null } : reply;
      case 'eth_getBlockReceipts':
        return Array.isArray(result) && isObj(result[0]) && (await above(result[0].blockNumber)) ? { ...reply, result: null } : reply;
      default:
        return reply;
    }
  }
}
