// Why a price source gave no vote on a window (docs/prices.md, "Why a source abstains"): one stable code per
// case, stored with the reading and shown as `abstained_reason` by GET /v1/markets/{id} (spec/openapi.yaml,
// SourceReading). Never raw error text: that can carry an endpoint's URL and key.
import { redactUrls } from '../../redact-url.js';

export const ABSTAIN_REASONS = [
  /** The source has no symbol or feed for the asset, or its own listing says it does not trade it. */
  'not_listed',
  /** The source answered it has no observation at or before the time (before a feed's first round): not yet known, asked again. */
  'no_observation',
  /** The observation of the boundary itself (its 1 s kline or candle, its Pyth second) is still missing: asked again later. */
  'not_published_yet',
  /** ... and still missing once the source's publication delay passed: never replaced by an older one. */
  'boundary_not_published',
  /** Observed longer than the source's maximum age before its time. */
  'observation_too_old',
  /** One observation for both the open and the close: the source saw nothing during the window. */
  'same_observation',
  /** HTTP 451, 403 or 401: the source refuses this deployment (a region, a firewall, a missing key). */
  'blocked',
  /** HTTP 429, or its circuit is open after one: no request until its Retry-After passed. */
  'rate_limited',
  /** HTTP 418 (an IP ban), or its circuit is open after one. */
  'banned',
  /** The L2 sequencer was down at the time (CHAINLINK_SEQUENCER_FEED). */
  'sequencer_down',
  /** The L2 sequencer had come back less than CHAINLINK_SEQUENCER_GRACE_MS before the time. */
  'sequencer_grace_period',
  /** No answer within PRICE_SOURCE_TIMEOUT_MS, after the retries. */
  'timeout',
  /** The source could not be reached (connection refused, DNS, TLS). */
  'unreachable',
  /** An answer that is not the documented format. */
  'malformed_answer',
  /** Any other failure of the source (HTTP 5xx after the retries, an unexpected status, an RPC error). */
  'source_error',
] as const;

export type AbstainReason = (typeof ABSTAIN_REASONS)[number];

/**
 * Reasons that are final for a window: asking again cannot change them (the boundary was never published, the
 * observation is too old...). The others are transient: the window waits for the source until
 * RESOLUTION_MAX_WAIT_MS, unless a quorum agrees first. A source's "nothing" (`no_observation`) is not final:
 * silence is "not yet known", never "did not happen".
 */
const FINAL: ReadonlySet<AbstainReason> = new Set([
  'not_listed',
  'boundary_not_published',
  'observation_too_old',
  'same_observation',
  'sequencer_down',
  'sequencer_grace_period',
]);

export const isFinal = (reason: AbstainReason): boolean => FINAL.has(reason);

/** A source's answer that is not an observation, with its reason (thrown by the adapters, caught by the reader). */
export class Abstain extends Error {
  override name = 'Abstain';
  /** The HTTP status that caused it, if any, and the first characters of the answer's body. */
  readonly status: number | undefined;
  readonly body: string | undefined;
  /** Until when the source's circuit is open (429, 418), Unix ms. */
  readonly untilMs: number | undefined;
  constructor(
    readonly reason: AbstainReason,
    message: string = reason,
    extra: { status?: number; body?: string; untilMs?: number } = {},
  ) {
    super(redactUrls(message));
    this.status = extra.status;
    this.body = extra.body;
    this.untilMs = extra.untilMs;
  }
}

/** The reason of anything an adapter threw: an Abstain's own, else `source_error`. */
export function reasonOf(err: unknown): AbstainReason {
  if (err instanceof Abstain) return err.reason;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timeout';
  return 'source_error';
}

/** A failure's message fit to store and log: URLs reduced to their host, at most 300 characters. */
export const detailOf = (err: unknown): string => redactUrls(err instanceof Error ? err.message : String(err)).slice(0, 300);
