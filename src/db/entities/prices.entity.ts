// Window resolution by a quorum of price sources (migrations 20261126030000 and 20261128030000, docs/prices.md).
import { defineEntity, p } from '@mikro-orm/core';

export const WindowPriceCheckSchema = defineEntity({
  name: 'WindowPriceCheck',
  tableName: 'window_price_checks',
  properties: {
    marketId: p.bigint('string').primary().autoincrement(false).fieldName('market_id'),
    state: p.enum(['agreed', 'disputed'] as const),
    reason: p.enum(['disagreement', 'too_few_readings'] as const).nullable(),
    quorum: p.smallint(),
    sources: p.text(),
    maxAgeMs: p.bigint('string').fieldName('max_age_ms'),
    checkedAtMs: p.bigint('string').fieldName('checked_at_ms'),
    voidAtMs: p.bigint('string').fieldName('void_at_ms').nullable(),
  },
});

export const WindowPriceReadingSchema = defineEntity({
  name: 'WindowPriceReading',
  tableName: 'window_price_readings',
  properties: {
    marketId: p.bigint('string').primary().autoincrement(false).fieldName('market_id'),
    source: p.text().primary(),
    verdict: p.enum(['YES', 'NO', 'stale', 'missing'] as const),
    openPriceMicros: p.bigint('string').fieldName('open_price_micros').nullable(),
    openObservedAtMs: p.bigint('string').fieldName('open_observed_at_ms').nullable(),
    openRef: p.text().fieldName('open_ref').nullable(),
    closePriceMicros: p.bigint('string').fieldName('close_price_micros').nullable(),
    closeObservedAtMs: p.bigint('string').fieldName('close_observed_at_ms').nullable(),
    closeRef: p.text().fieldName('close_ref').nullable(),
    error: p.text().nullable(),
    abstainedReason: p.text().fieldName('abstained_reason').nullable(),
    maxAgeMs: p.bigint('string').fieldName('max_age_ms').nullable(),
    openConfidenceMicros: p.bigint('string').fieldName('open_confidence_micros').nullable(),
    closeConfidenceMicros: p.bigint('string').fieldName('close_confidence_micros').nullable(),
  },
});

export const PriceSourceHealthSchema = defineEntity({
  name: 'PriceSourceHealth',
  tableName: 'price_source_health',
  properties: {
    source: p.text().primary(),
    lastSuccessAtMs: p.bigint('string').fieldName('last_success_at_ms').nullable(),
    lastFailureAtMs: p.bigint('string').fieldName('last_failure_at_ms').nullable(),
    lastError: p.text().fieldName('last_error').nullable(),
    requests: p.bigint('string').default('0'),
    failures: p.bigint('string').default('0'),
    latencyMsTotal: p.bigint('string').fieldName('latency_ms_total').default('0'),
    state: p.enum(['ok', 'failing', 'blocked', 'banned'] as const).nullable(),
    stateReason: p.text().fieldName('state_reason').nullable(),
    stateDetail: p.text().fieldName('state_detail').nullable(),
    probedAtMs: p.bigint('string').fieldName('probed_at_ms').nullable(),
    okAtMs: p.bigint('string').fieldName('ok_at_ms').nullable(),
    listed: p.text().nullable(),
    unlisted: p.text().nullable(),
    circuitUntilMs: p.bigint('string').fieldName('circuit_until_ms').nullable(),
    circuitReason: p
      .enum(['rate_limited', 'banned', 'unavailable'] as const)
      .fieldName('circuit_reason')
      .nullable(),
  },
});

/** Observations fetched per (source, asset, boundary), shared by every process (migration 20261128030000). */
export const PriceObservationSchema = defineEntity({
  name: 'PriceObservation',
  tableName: 'price_observations',
  properties: {
    source: p.text().primary(),
    asset: p.text().primary(),
    atMs: p.bigint('string').primary().autoincrement(false).fieldName('at_ms'),
    priceMicros: p.bigint('string').fieldName('price_micros'),
    observedAtMs: p.bigint('string').fieldName('observed_at_ms'),
    ref: p.text().nullable(),
    confidenceMicros: p.bigint('string').fieldName('confidence_micros').nullable(),
    fetchedAtMs: p.bigint('string').fieldName('fetched_at_ms'),
  },
});
