// Window resolution by a quorum of price sources (migration 20261126030000, docs/prices.md).
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
  },
});
