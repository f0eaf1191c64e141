// What hosted providers answer when they refuse, for the provider stand-in (src/testing/rpc-provider.ts). Each
// body is the provider's own, as documented or as captured in public reports (sources quoted beside each);
// where a message names a limit, the stand-in writes the limit the test configured, so a test can use a cap of
// 3 logs instead of 10,000.
import { errorReply, toHex, type RpcCall, type RpcReply } from './rpc-provider-types.js';

export type ProviderName = 'alchemy' | 'infura' | 'quicknode';
/** Whose 429: a provider's JSON-RPC error body, or `plain` (a bare "Too Many Requests" text body, as an edge or CDN in front of a node answers). */
export type RateLimitBody = ProviderName | 'plain';

/**
 * The JSON-RPC error of a rate-limited request (all three answer HTTP 429).
 * - Alchemy (docs, "Throughput", alchemy.com/docs/reference/throughput): "You will receive an HTTP 429 (Too
 *   Many Requests) response status code" and, as the JSON-RPC error, `{"code": 429, "message": "Your app has
 *   exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this
 *   message. If not, check out https://docs.alchemy.com/reference/throughput"}`.
 * - Infura (INFURA/infura issue 201, a captured response): `429 Too Many Requests {"jsonrpc":"2.0","id":3419,
 *   "error":{"code":-32005,"message":"project ID request rate exceeded","data":{"rate":{"allowed_rps":50,
 *   "backoff_seconds":0,"current_rps":52.3},"see":"https://infura.io/docs/ethereum/json-rpc/ratelimits"}}}`.
 * - QuickNode (foundry-rs/foundry issue 4894, a captured error): `{"code":-32007,"message":"100/second request
 *   limit reached - reduce calls per second or upgrade your account at quicknode.com"}`.
 */
export function rateLimitedReply(provider: ProviderName, call: RpcCall, retryAfterSeconds: number): RpcReply {
  switch (provider) {
    case 'alchemy':
      return errorReply(call, {
        code: 429,
        message:
          'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput',
      });
    case 'infura':
      return errorReply(call, {
        code: -32005,
        message: 'project ID request rate exceeded',
        data: {
          rate: { allowed_rps: 10, backoff_seconds: retryAfterSeconds, current_rps: 13.3 },
          see: 'https://infura.io/docs/ethereum/json-rpc/ratelimits',
        },
      });
    case 'quicknode':
      return errorReply(call, {
        code: -32007,
        message: '15/second request limit reached - reduce calls per second or upgrade your account at quicknode.com',
      });
  }
}

const range = (from: bigint, to: bigint) => `[${toHex(from)}, ${toHex(to)}]`;

/**
 * Alchemy, too many logs over too wide a range. Its docs (eth_getLogs): "You can make eth_getLogs requests with up
 * to a 2K block range and 150MB limit on the response size. You can also request any block range with a cap of 10K
 * logs in the response." The refusal, as captured (ethers-io/ethers.js issue 4703): `{"code":-32602,"message":"Log
 * response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the
 * response size, or you can request any block range with a cap of 10K logs in the response. Based on your
 * parameters and the response size limit, this block range should work: [0x0, 0xd043b8]"}`. The sentence is fixed
 * text; the suggested range is computed from the test's caps.
 */
export function alchemyLogSizeReply(call: RpcCall, suggestFrom: bigint, suggestTo: bigint): RpcReply {
  return errorReply(call, {
    code: -32602,
    message: `Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: ${range(suggestFrom, suggestTo)}`,
  });
}

/**
 * Alchemy, a plan's block-range cap (its eth_getLogs docs list 10 blocks on the free tier for Ethereum and Base).
 * As captured (risc0/risc0-ethereum pull request 656): `{"code":-32600,"message":"You can make eth_getLogs requests
 * with up to a 500 block range. Based on your parameters, this block range should work: [0x1be4213, 0x1be4406]"}`.
 */
export function alchemyRangeReply(call: RpcCall, maxBlocks: number, from: bigint): RpcReply {
  return errorReply(call, {
    code: -32600,
    message: `You can make eth_getLogs requests with up to a ${maxBlocks} block range. Based on your parameters, this block range should work: ${range(from, from + BigInt(maxBlocks) - 1n)}`,
  });
}

/**
 * Infura, too many results. Its docs (eth_getLogs, constraints): "A maximum of 10,000 results can be returned by a
 * single query (code -32005)". As captured (ethers-io/ethers.js issue 4703): `{"code":-32005,"data":{"from":
 * "0xBDE5F8","limit":10000,"to":"0x102DBCC"},"message":"query returned more than 10000 results. Try with this
 * block range [0xBDE5F8, 0x102DBCC]."}`.
 */
export function infuraTooManyReply(call: RpcCall, limit: number, suggestFrom: bigint, suggestTo: bigint): RpcReply {
  const [from, to] = [toHex(suggestFrom).toUpperCase().replace('0X', '0x'), toHex(suggestTo).toUpperCase().replace('0X', '0x')];
  return errorReply(call, {
    code: -32005,
    data: { from, limit, to },
    message: `query returned more than ${limit} results. Try with this block range [${from}, ${to}].`,
  });
}

/**
 * Infura, a block range over its cap, which its docs do not describe (INFURA/infura issue 237, captured):
 * `{"code":-32602,"message":"range 1000000 exceeds limit of 10000"}`.
 */
export function infuraRangeReply(call: RpcCall, blocks: bigint, maxBlocks: number): RpcReply {
  return errorReply(call, { code: -32602, message: `range ${blocks} exceeds limit of ${maxBlocks}` });
}

/**
 * QuickNode, a block range over the plan's cap, answered with HTTP 413. Its docs (eth_getLogs): "the block range
 * limit for this RPC method is 5 blocks for users on the Free Trial plan and 10,000 blocks for those on paid
 * plans"; its error reference: "413 Request Entity Too Large: eth_getLogs and eth_newFilter are limited to a
 * 10,000 blocks range". As captured (eternalsafe/wallet issue 57): `status=413 ... {"jsonrpc":"2.0","id":206,
 * "error":{"code":-32614,"message":"eth_getLogs is limited to a 10,000 range"}}`.
 */
export function quicknodeRangeReply(call: RpcCall, maxBlocks: number): RpcReply {
  return errorReply(call, { code: -32614, message: `eth_getLogs is limited to a ${maxBlocks.toLocaleString('en-US')} range` });
}

/**
 * A load-balanced node asked for state at a block it has not imported yet: geth's answer, which Infura and others
 * pass on (MetaMask/metamask-extension issue 7234, gakonst/ethers-rs pull request 1706: `{"code":-32000,"message":
 * "header not found"}`, "apparently this is linked to load balancing").
 */
export function headerNotFoundReply(call: RpcCall): RpcReply {
  return errorReply(call, { code: -32000, message: 'header not found' });
}
