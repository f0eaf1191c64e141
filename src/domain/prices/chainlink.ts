// PRICE_FEED source `chainlink`: one AggregatorV3Interface contract (a Chainlink price feed proxy) per asset
// on CHAIN_RPC_URL (CHAINLINK_FEEDS). A proxy's round id is (phaseId << 64) | aggregator round id: rounds
// count up from 1 within a phase, with non-decreasing updatedAt. The price at t is the answer of the round
// in force at t, the last one with updatedAt <= t, found by binary search over the round ids of the phase
// (then of the phase before, when t precedes the phase's first round): about log2(rounds) + 3 calls, never a
// scan. The answer is scaled by decimals() to micros; the round id is the identifier.
import { BaseError, ContractFunctionRevertedError, createPublicClient, http, webSocket, type PublicClient, type Transport } from 'viem';
import { scaledToMicros } from './decimal.js';
import type { PriceFeed } from './feed.js';

export const AGGREGATOR_V3_ABI = [
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
  {
    type: 'function',
    name: 'getRoundData',
    stateMutability: 'view',
    inputs: [{ name: '_roundId', type: 'uint80' }],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
] as const;

export interface ChainlinkOptions {
  rpcUrl: string;
  /** Asset -> aggregator (proxy) address. */
  feeds: Readonly<Record<string, string>>;
  timeoutMs: number;
  retries: number;
  /** For tests: the transport (e.g. one that counts calls); default http/webSocket of rpcUrl. */
  transport?: Transport;
}

interface Round {
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

const PHASE_SHIFT = 64n;
const AGG_MASK = (1n << PHASE_SHIFT) - 1n;

export function createChainlinkFeed(opts: ChainlinkOptions): PriceFeed {
  const transport =
    opts.transport ??
    (/^wss?:/.test(opts.rpcUrl)
      ? webSocket(opts.rpcUrl, { timeout: opts.timeoutMs, retryCount: opts.retries })
      : http(opts.rpcUrl, { timeout: opts.timeoutMs, retryCount: opts.retries }));
  const client = createPublicClient({ transport }) as PublicClient;
  const decimals = new Map<string, Promise<number>>();

  return {
    source: 'chainlink',
    async priceAt(asset, tsMs) {
      const address = opts.feeds[asset] as `0x${string}` | undefined;
      if (!address) return null;
      let d = decimals.get(address);
      if (!d) {
        d = client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: 'decimals' }).then(Number);
        decimals.set(address, d);
        d.catch(() => decimals.delete(address));
      }
      const round = await roundAt(client, address, BigInt(Math.floor(tsMs / 1000)));
      if (!round || round.answer <= 0n) return null;
      return {
        priceMicros: scaledToMicros(round.answer, await d),
        observedAtMs: Number(round.updatedAt) * 1000,
        sourceRef: `round:${round.roundId}`,
      };
    },
  };
}

/** The round in force at `tsS` (Unix seconds): the last round with 0 < updatedAt <= tsS; null before the first. */
export async function roundAt(client: PublicClient, address: `0x${string}`, tsS: bigint): Promise<Round | null> {
  const [roundId, answer, , updatedAt] = await client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: 'latestRoundData' });
  if (updatedAt > 0n && updatedAt <= tsS) return { roundId, answer, updatedAt };
  let phase = roundId >> PHASE_SHIFT;
  let last = roundId & AGG_MASK;
  const get = async (agg: bigint): Promise<Round | null> => {
    try {
      const [id, a, , u] = await client.readContract({
        address,
        abi: AGGREGATOR_V3_ABI,
        functionName: 'getRoundData',
        args: [(phase << PHASE_SHIFT) | agg],
      });
      return u > 0n ? { roundId: id, answer: a, updatedAt: u } : null;
    } catch (err) {
      // A round that does not exist reverts ("No data present"); anything else (the RPC is down) fails the read.
      if (err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionRevertedError)) return null;
      throw err;
    }
  };
  while (phase >= 1n) {
    const first = last >= 1n ? await get(1n) : null;
    if (first && first.updatedAt <= tsS) {
      // Invariant: round lo is in force at or before tsS; the answer is in [lo, hi].
      let lo = 1n;
      let best = first;
      let hi = last - 1n; // `last` is after tsS (latestRoundData or the end of an earlier phase was checked)
      while (lo < hi) {
        const mid = (lo + hi + 1n) / 2n;
        const r = await get(mid);
        if (r && r.updatedAt <= tsS) {
          lo = mid;
          best = r;
        } else hi = mid - 1n;
      }
      return best;
    }
    phase -= 1n;
    if (phase < 1n) break;
    last = (await lastRoundOf(get)) + 1n; // +1: every round of the earlier phase may be at or before tsS
  }
  return null;
}

/** The last aggregator round id of a phase: galloping up from 1, then a binary search (2·log2 n calls). */
async function lastRoundOf(get: (agg: bigint) => Promise<Round | null>): Promise<bigint> {
  if (!(await get(1n))) return 0n;
  let lo = 1n;
  let hi = 2n;
  while (await get(hi)) {
    lo = hi;
    hi *= 2n;
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (await get(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
