// The shapes shared by the provider stand-in (src/testing/rpc-provider.ts) and its behaviours
// (rpc-provider-*.ts): a JSON-RPC call and reply, what a behaviour may do with a call, and the per-request
// context (the clock, and the node's true head read once per HTTP request).

export interface RpcCall {
  jsonrpc?: string;
  id?: number | string | null;
  method: string;
  params?: unknown[];
}

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcReply {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: RpcErrorBody;
}

/**
 * What a behaviour decides before a call goes to the node: answer it itself (`reply`), answer the whole HTTP
 * request with a status of its own (`http`: QuickNode's 413 for a log range), or send a rewritten call.
 */
export type Before = { reply: RpcReply } | { http: { status: number; reply: RpcReply } } | { call: RpcCall } | undefined;

export interface CallContext {
  /** The proxy's clock (ms) when the HTTP request arrived. */
  now: number;
  /** The node's true head, read from the node once per HTTP request (not counted as a request). */
  head(): Promise<bigint>;
}

export interface Behaviour {
  before?(call: RpcCall, ctx: CallContext): Promise<Before> | Before;
  after?(call: RpcCall, reply: RpcReply, ctx: CallContext): Promise<RpcReply> | RpcReply;
}

export const reply = (call: RpcCall, result: unknown): RpcReply => ({ jsonrpc: '2.0', id: call.id ?? null, result });
export const errorReply = (call: RpcCall, error: RpcErrorBody): RpcReply => ({ jsonrpc: '2.0', id: call.id ?? null, error });

export const toHex = (n: bigint | number): string => `0x${n.toString(16)}`;

/** A quantity the node answered (`"0x1a"`), or undefined when it is not one. */
export function quantity(v: unknown): bigint | undefined {
  return typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : undefined;
}

/**
 * A block parameter as a number: a hex quantity, `earliest` (0), or a tag that names the head (`latest`,
 * `pending`, `safe`, `finalized`, or absent; close enough for range caps on a test chain).
 */
export async function blockOf(tag: unknown, ctx: CallContext): Promise<bigint> {
  if (tag === 'earliest') return 0n;
  return quantity(tag) ?? (await ctx.head());
}
