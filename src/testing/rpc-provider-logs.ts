// `eth_getLogs` caps for the provider stand-in (src/testing/rpc-provider.ts), as hosted providers enforce them
// (their error bodies and sources: rpc-provider-errors.ts). Block ranges count both ends (from 10 to 19 is 10
// blocks); `latest` and an absent bound are the node's true head. A query by `blockHash` is one block.
//   alchemy        more than maxLogs (10,000) logs over more than maxBlocks (2,000) blocks: -32602 "Log response
//                  size exceeded ..." (Alchemy serves either a 2K-block range or any range with at most 10K logs)
//   alchemy-range  a plan's block-range cap, maxBlocks (10, the free tier's): -32600 "You can make eth_getLogs
//                  requests with up to a N block range ..."
//   infura         more than maxLogs (10,000) results: -32005 "query returned more than N results ..." with
//                  `data: {from, limit, to}`; and, when maxBlocks is given, a range over it: -32602 "range R exceeds
//                  limit of N"
//   quicknode      more than maxBlocks (5, the free plan's) blocks: HTTP 413, -32614 "eth_getLogs is limited to a
//                  5 range"
// Every refusal is a JSON-RPC error in an HTTP 200 except QuickNode's 413 (`httpStatus` overrides it).
import {
  alchemyLogSizeReply,
  alchemyRangeReply,
  infuraRangeReply,
  infuraTooManyReply,
  quicknodeRangeReply,
} from './rpc-provider-errors.js';
import { blockOf, quantity, type Before, type Behaviour, type CallContext, type RpcCall, type RpcReply } from './rpc-provider-types.js';

export type LogCapProvider = 'alchemy' | 'alchemy-range' | 'infura' | 'quicknode';

export interface LogCapOptions {
  provider: LogCapProvider;
  /** Block-range cap (defaults: alchemy 2,000, alchemy-range 10, quicknode 5; infura none). */
  maxBlocks?: number;
  /** Log-count cap (defaults: alchemy and infura 10,000). */
  maxLogs?: number;
  /** HTTP status of the refusal (defaults: 413 for quicknode, 200 for the others). */
  httpStatus?: number;
}

interface Cap {
  provider: LogCapProvider;
  maxBlocks: number | undefined;
  maxLogs: number | undefined;
  httpStatus: number;
}

const DEFAULTS: Record<LogCapProvider, { maxBlocks?: number; maxLogs?: number; httpStatus: number }> = {
  alchemy: { maxBlocks: 2_000, maxLogs: 10_000, httpStatus: 200 },
  'alchemy-range': { maxBlocks: 10, httpStatus: 200 },
  infura: { maxLogs: 10_000, httpStatus: 200 },
  quicknode: { maxBlocks: 5, httpStatus: 413 },
};

interface Filter {
  fromBlock?: unknown;
  toBlock?: unknown;
  blockHash?: unknown;
}

export class LogCaps implements Behaviour {
  private cap: Cap | undefined;

  set(opts: LogCapOptions): void {
    const d = DEFAULTS[opts.provider];
    if (!d) throw new Error(`capLogs: unknown provider ${String(opts.provider)}`);
    this.cap = {
      provider: opts.provider,
      maxBlocks: opts.maxBlocks ?? d.maxBlocks,
      maxLogs: opts.maxLogs ?? d.maxLogs,
      httpStatus: opts.httpStatus ?? d.httpStatus,
    };
  }

  clear(): void {
    this.cap = undefined;
  }

  async before(call: RpcCall, ctx: CallContext): Promise<Before> {
    const cap = this.cap;
    if (!cap || call.method !== 'eth_getLogs' || cap.maxBlocks === undefined) return undefined;
    const { from, to } = await range(call, ctx);
    const blocks = to - from + 1n;
    if (blocks <= BigInt(cap.maxBlocks)) return undefined;
    const refuse = (r: RpcReply): Before => (cap.httpStatus === 200 ? { reply: r } : { http: { status: cap.httpStatus, reply: r } });
    switch (cap.provider) {
      case 'alchemy-range':
        return refuse(alchemyRangeReply(call, cap.maxBlocks, from));
      case 'quicknode':
        return refuse(quicknodeRangeReply(call, cap.maxBlocks));
      case 'infura':
        return refuse(infuraRangeReply(call, blocks, cap.maxBlocks));
      case 'alchemy':
        return undefined; // Alchemy refuses a wide range only when it also holds too many logs: see after()
    }
  }

  async after(call: RpcCall, reply: RpcReply, ctx: CallContext): Promise<RpcReply> {
    const cap = this.cap;
    if (!cap || call.method !== 'eth_getLogs' || cap.maxLogs === undefined || !Array.isArray(reply.result)) return reply;
    if (cap.provider !== 'alchemy' && cap.provider !== 'infura') return reply;
    const logs = reply.result as Array<{ blockNumber?: unknown }>;
    if (logs.length <= cap.maxLogs) return reply;
    const { from, to } = await range(call, ctx);
    if (cap.provider === 'alchemy' && cap.maxBlocks !== undefined && to - from + 1n <= BigInt(cap.maxBlocks)) return reply;
    // The widest range from `from` that holds at most maxLogs logs: up to the block before the first log past the cap.
    const blocks = logs.map((l) => quantity(l.blockNumber) ?? from).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const past = blocks[cap.maxLogs]!;
    const suggestTo = past - 1n < from ? from : past - 1n;
    return cap.provider === 'alchemy' ? alchemyLogSizeReply(call, from, suggestTo) : infuraTooManyReply(call, cap.maxLogs, from, suggestTo);
  }
}

async function range(call: RpcCall, ctx: CallContext): Promise<{ from: bigint; to: bigint }> {
  const filter = (call.params?.[0] ?? {}) as Filter;
  if (filter.blockHash !== undefined) return { from: 0n, to: 0n };
  return { from: await blockOf(filter.fromBlock ?? 'latest', ctx), to: await blockOf(filter.toBlock ?? 'latest', ctx) };
}
