// Chainlink AggregatorV3Interface reads for the `chainlink` source (chainlink.ts) and its L2 sequencer check:
// the ABI, and the round in force at a time found by binary search over a proxy's round ids. A proxy's round
// id is (phaseId << 64) | aggregator round id: rounds count up from 1 within a phase, with non-decreasing
// updatedAt (and startedAt). The search costs about log2(rounds) + 3 calls, never a scan; a round that does
// not exist reverts, any other RPC failure fails the read.
import { BaseError, ContractFunctionRevertedError, type PublicClient } from 'viem';

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

export interface Round {
  roundId: bigint;
  answer: bigint;
  startedAt: bigint;
  updatedAt: bigint;
}

const PHASE_SHIFT = 64n;
const AGG_MASK = (1n << PHASE_SHIFT) - 1n;

/** Which timestamp orders the rounds: price feeds by `updatedAt`, sequencer uptime feeds by `startedAt` (the status change). */
export type RoundKey = 'updatedAt' | 'startedAt';

/** Round `roundId` of the proxy at `address`, or null when it does not exist (the call reverts). */
export async function getRound(client: PublicClient, address: `0x${string}`, roundId: bigint): Promise<Round | null> {
  try {
    const [id, answer, startedAt, updatedAt] = await client.readContract({
      address,
      abi: AGGREGATOR_V3_ABI,
      functionName: 'getRoundData',
      args: [roundId],
    });
    return updatedAt > 0n ? { roundId: id, answer, startedAt, updatedAt } : null;
  } catch (err) {
    // A round that does not exist reverts ("No data present"); anything else (the RPC is down) fails the read.
    if (err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionRevertedError)) return null;
    throw err;
  }
}

/** The latest round of the proxy at `address`. */
export async function latestRound(client: PublicClient, address: `0x${string}`): Promise<Round> {
  const [roundId, answer, startedAt, updatedAt] = await client.readContract({
    address,
    abi: AGGREGATOR_V3_ABI,
    functionName: 'latestRoundData',
  });
  return { roundId, answer, startedAt, updatedAt };
}

/** The round in force at `tsS` (Unix seconds): the last round with 0 < key <= tsS; null before the first. */
export async function roundAt(
  client: PublicClient,
  address: `0x${string}`,
  tsS: bigint,
  key: RoundKey = 'updatedAt',
): Promise<Round | null> {
  const latest = await latestRound(client, address);
  if (latest[key] > 0n && latest[key] <= tsS) return latest;
  let phase = latest.roundId >> PHASE_SHIFT;
  let last = latest.roundId & AGG_MASK;
  const get = (agg: bigint) => getRound(client, address, (phase << PHASE_SHIFT) | agg);
  while (phase >= 1n) {
    const first = last >= 1n ? await get(1n) : null;
    if (first && first[key] <= tsS) {
      // Invariant: round lo is in force at or before tsS; the answer is in [lo, hi].
      let lo = 1n;
      let best = first;
      let hi = last - 1n; // `last` is after tsS (latestRoundData or the end of an earlier phase was checked)
      while (lo < hi) {
        const mid = (lo + hi + 1n) / 2n;
        const r = await get(mid);
        if (r && r[key] <= tsS) {
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
