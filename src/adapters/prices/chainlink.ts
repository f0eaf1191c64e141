// PRICE_FEED source `chainlink`: one AggregatorV3Interface contract (a Chainlink price feed proxy) per asset
// on CHAIN_RPC_URL (CHAINLINK_FEEDS). The price at t is the answer of the round in force at t, the last one
// with updatedAt <= t (chainlink-rounds.ts: a binary search, never a scan), scaled by decimals() to micros;
// the round id is the identifier. On an L2 the chain's sequencer uptime feed (CHAINLINK_SEQUENCER_FEED, the
// same interface: answer 0 = up, 1 = down, startedAt = when the status changed; docs.chain.link, "L2 Sequencer
// Uptime Feeds") is read first: the source abstains when the sequencer was down at t (`sequencer_down`) or had
// come back less than CHAINLINK_SEQUENCER_GRACE_MS before t (`sequencer_grace_period`), as Chainlink's own
// example does with its GRACE_PERIOD_TIME. RPC failures become a reason code with the endpoint's URL
// removed (viem's messages name it, and a provider's URL holds its key).
import { BaseError, createPublicClient, type PublicClient, type Transport } from 'viem';
import { redactUrls } from '../../redact-url.js';
import { rpcTransport } from '../chain/transport.js';
import { AGGREGATOR_V3_ABI, getRound, latestRound, roundAt } from './chainlink-rounds.js';
import { scaledToMicros } from './decimal.js';
import type { PriceFeed, PriceObservation, SourceProbe } from './feed.js';
import { Abstain } from './reasons.js';

export { AGGREGATOR_V3_ABI, roundAt } from './chainlink-rounds.js';

export interface ChainlinkOptions {
  rpcUrl: string;
  /** Asset -> aggregator (proxy) address. */
  feeds: Readonly<Record<string, string>>;
  timeoutMs: number;
  retries: number;
  /** The chain's L2 sequencer uptime feed (proxy); none on an L1. */
  sequencerFeed?: string;
  /** After the sequencer came back, readings within this long abstain (default 1 hour). */
  sequencerGraceMs?: number;
  /** For tests: the transport (e.g. one that counts calls); default http/webSocket of rpcUrl. */
  transport?: Transport;
}

/** A viem failure as an Abstain: `timeout`, `unreachable` or `source_error`, its message without any URL. */
export function chainFailure(err: unknown): Abstain {
  if (err instanceof Abstain) return err;
  const base = err instanceof BaseError ? err : null;
  const timedOut = !!base?.walk((e) => (e as Error).name === 'TimeoutError');
  const http = base?.walk((e) => (e as Error).name === 'HttpRequestError' || (e as Error).name === 'WebSocketRequestError');
  const message = redactUrls(base?.shortMessage ?? (err instanceof Error ? err.message : String(err))).slice(0, 200);
  return new Abstain(timedOut ? 'timeout' : http ? 'unreachable' : 'source_error', message);
}

export function createChainlinkFeed(opts: ChainlinkOptions): PriceFeed {
  const transport = opts.transport ?? rpcTransport(opts.rpcUrl, { timeout: opts.timeoutMs, retryCount: opts.retries });
  const client = createPublicClient({ transport }) as PublicClient;
  const decimals = new Map<string, Promise<number>>();
  const graceS = BigInt(Math.ceil((opts.sequencerGraceMs ?? 3_600_000) / 1000));
  const addressOf = (asset: string) => {
    const address = opts.feeds[asset] as `0x${string}` | undefined;
    if (!address) throw new Abstain('not_listed', `no CHAINLINK_FEEDS entry for ${asset}`);
    return address;
  };
  const decimalsOf = (address: `0x${string}`) => {
    let d = decimals.get(address);
    if (!d) {
      d = client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: 'decimals' }).then(Number);
      decimals.set(address, d);
      d.catch(() => decimals.delete(address));
    }
    return d;
  };
  const observation = async (
    address: `0x${string}`,
    round: { roundId: bigint; answer: bigint; updatedAt: bigint },
  ): Promise<PriceObservation | null> =>
    round.answer <= 0n
      ? null
      : {
          priceMicros: scaledToMicros(round.answer, await decimalsOf(address)),
          observedAtMs: Number(round.updatedAt) * 1000,
          sourceRef: `round:${round.roundId}`,
        };
  const checkSequencer = (tsS: bigint) =>
    opts.sequencerFeed ? sequencerCheck(client, opts.sequencerFeed as `0x${string}`, tsS, graceS) : undefined;
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw chainFailure(err);
    }
  };

  return {
    source: 'chainlink',
    covers: (asset) => opts.feeds[asset] !== undefined,
    priceAt: (asset, tsMs) =>
      guard(async () => {
        const address = addressOf(asset);
        const tsS = BigInt(Math.floor(tsMs / 1000));
        await checkSequencer(tsS);
        const round = await roundAt(client, address, tsS);
        return round ? observation(address, round) : null;
      }),
    lookup: (asset, ref) =>
      guard(async () => {
        const m = /^round:(\d{1,30})$/.exec(ref);
        if (!m) return null;
        const address = addressOf(asset);
        const round = await getRound(client, address, BigInt(m[1]!));
        return round ? observation(address, round) : null;
      }),
    probe: (assets) => guard(() => probeFeeds(client, opts, assets, decimalsOf)),
  };
}

/** Throws when the L2 sequencer was down at `tsS`, or had come back less than `graceS` before it. */
async function sequencerCheck(client: PublicClient, feed: `0x${string}`, tsS: bigint, graceS: bigint): Promise<void> {
  const status = await roundAt(client, feed, tsS, 'startedAt');
  if (!status) return; // no status change recorded before tsS: the feed started later, the sequencer was not reported down
  if (status.answer !== 0n) throw new Abstain('sequencer_down', `the L2 sequencer was down at ${tsS} (since ${status.startedAt})`);
  const recovered = (status.roundId & ((1n << 64n) - 1n)) > 1n; // an "up" round after a "down" one
  if (recovered && tsS - status.startedAt < graceS) {
    throw new Abstain('sequencer_grace_period', `the L2 sequencer came back at ${status.startedAt}, less than ${graceS} s before ${tsS}`);
  }
}

/** The probe: the sequencer feed holds a contract with a round; each asset's feed holds a contract with a round and decimals. */
async function probeFeeds(
  client: PublicClient,
  opts: ChainlinkOptions,
  assets: readonly string[],
  decimalsOf: (address: `0x${string}`) => Promise<number>,
): Promise<SourceProbe> {
  const out: SourceProbe = { listed: [], unlisted: [] };
  if (opts.sequencerFeed) {
    const seq = opts.sequencerFeed as `0x${string}`;
    if (!(await client.getCode({ address: seq })))
      throw new Abstain('source_error', 'CHAINLINK_SEQUENCER_FEED holds no contract on this chain');
    await latestRound(client, seq);
  }
  for (const asset of assets) {
    const address = opts.feeds[asset] as `0x${string}` | undefined;
    // An address holding no contract lists nothing: a typo, or another chain's address.
    if (!address || !(await client.getCode({ address }))) {
      out.unlisted.push(asset);
      continue;
    }
    await latestRound(client, address);
    await decimalsOf(address);
    out.listed.push(asset);
  }
  return out;
}
