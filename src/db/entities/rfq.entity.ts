import { defineEntity, p } from '@mikro-orm/core';
import { DIRECTIONS, SETTLED_OUTCOMES } from '../vocabulary.js';

// RFQ trading (migration ..._rfq): RFQs, quotes, positions with their legs and fills, window resolutions
// and trading counters. Times are epoch milliseconds in int8 ('string' mode), money int8 micros.

export const RfqSchema = defineEntity({
  name: 'Rfq',
  tableName: 'rfqs',
  properties: {
    id: p.uuid().primary(),
    takerUserId: p.uuid().fieldName('taker_user_id'),
    takerAddress: p.text().fieldName('taker_address'),
    nonce: p.bigint('string'),
    orderHash: p.text().fieldName('order_hash'),
    signature: p.text(),
    /** The signed legs with their windows (RfqLegInfo[]). */
    legs: p.json<unknown>().columnType('jsonb'),
    stake: p.bigint('string'),
    minOddsBps: p.integer().fieldName('min_odds_bps'),
    orderType: p.enum(['IOC', 'FOK'] as const).fieldName('order_type'),
    fillMode: p.enum(['best', 'manual'] as const).fieldName('fill_mode'),
    status: p.enum(['open', 'filled', 'expired', 'cancelled'] as const).default('open'),
    deadlineMs: p.bigint('string').fieldName('deadline_ms'),
    quoteDeadlineMs: p.bigint('string').fieldName('quote_deadline_ms'),
    expiresAtMs: p.bigint('string').fieldName('expires_at_ms'),
    /** When the RFQ must close if nothing else closes it (best: quote deadline; manual: expiry). */
    dueAtMs: p.bigint('string').fieldName('due_at_ms'),
    createdAtMs: p.bigint('string').fieldName('created_at_ms'),
    closedAtMs: p.bigint('string').fieldName('closed_at_ms').nullable(),
    filledStake: p.bigint('string').fieldName('filled_stake').default('0'),
    payout: p.bigint('string').nullable(),
    oddsBps: p.integer().fieldName('odds_bps').nullable(),
    positionId: p.uuid().fieldName('position_id').nullable(),
    closeReason: p
      .enum(['no_quotes', 'below_min_odds', 'insufficient_liquidity', 'deadline', 'betting_closed', 'cancelled'] as const)
      .fieldName('close_reason')
      .nullable(),
    idempotencyKey: p.uuid().fieldName('idempotency_key').nullable(),
  },
});

export const RfqQuoteSchema = defineEntity({
  name: 'RfqQuote',
  tableName: 'rfq_quotes',
  properties: {
    id: p.uuid().primary(),
    rfqId: p.uuid().fieldName('rfq_id'),
    makerAddress: p.text().fieldName('maker_address'),
    makerUserId: p.uuid().fieldName('maker_user_id').nullable(),
    clientQuoteId: p.uuid().fieldName('client_quote_id').nullable(),
    oddsBps: p.integer().fieldName('odds_bps'),
    maxFill: p.bigint('string').fieldName('max_fill'),
    validUntilMs: p.bigint('string').fieldName('valid_until_ms'),
    signature: p.text(),
    status: p.enum(['live', 'filled', 'not_filled', 'rejected', 'replaced', 'cancelled'] as const).default('live'),
    reason: p.text().nullable(),
    filledStake: p.bigint('string').fieldName('filled_stake').default('0'),
    receivedAtMs: p.bigint('string').fieldName('received_at_ms'),
  },
});

export const PositionSchema = defineEntity({
  name: 'Position',
  tableName: 'positions',
  properties: {
    id: p.uuid().primary(),
    rfqId: p.uuid().fieldName('rfq_id').unique(),
    takerUserId: p.uuid().fieldName('taker_user_id'),
    takerAddress: p.text().fieldName('taker_address'),
    stake: p.bigint('string'),
    payout: p.bigint('string'),
    oddsBps: p.integer().fieldName('odds_bps'),
    status: p.enum(['open', ...SETTLED_OUTCOMES] as const).default('open'),
    pnl: p.bigint('string').nullable(),
    createdAtMs: p.bigint('string').fieldName('created_at_ms'),
    resolvedAtMs: p.bigint('string').fieldName('resolved_at_ms').nullable(),
    settleTxId: p.uuid().fieldName('settle_tx_id').nullable(),
  },
});

export const PositionLegSchema = defineEntity({
  name: 'PositionLeg',
  tableName: 'position_legs',
  properties: {
    positionId: p.uuid().primary().fieldName('position_id'),
    legIndex: p.smallint().primary().fieldName('leg_index'),
    marketId: p.bigint('string').fieldName('market_id'),
    direction: p.enum(DIRECTIONS),
    outcome: p.enum(['pending', ...SETTLED_OUTCOMES] as const).default('pending'),
  },
});

export const PositionFillSchema = defineEntity({
  name: 'PositionFill',
  tableName: 'position_fills',
  properties: {
    id: p.uuid().primary(),
    positionId: p.uuid().fieldName('position_id'),
    quoteId: p.uuid().fieldName('quote_id').unique(),
    makerAddress: p.text().fieldName('maker_address'),
    makerUserId: p.uuid().fieldName('maker_user_id'),
    stake: p.bigint('string'),
    oddsBps: p.integer().fieldName('odds_bps'),
    payout: p.bigint('string'),
    liability: p.bigint('string'),
    makerPnl: p.bigint('string').fieldName('maker_pnl').nullable(),
    createdAtMs: p.bigint('string').fieldName('created_at_ms'),
  },
});

export const WindowResolutionSchema = defineEntity({
  name: 'WindowResolution',
  tableName: 'window_resolutions',
  properties: {
    marketId: p.bigint('string').primary().autoincrement(false).fieldName('market_id'),
    outcome: p.enum(['YES', 'NO', 'VOID'] as const),
    openPriceMicros: p.bigint('string').fieldName('open_price_micros').nullable(),
    closePriceMicros: p.bigint('string').fieldName('close_price_micros').nullable(),
    source: p.text(),
    resolvedBy: p.enum(['feed', 'operator'] as const).fieldName('resolved_by'),
    resolvedAtMs: p.bigint('string').fieldName('resolved_at_ms'),
  },
});

/** Counters kept in the fill and settlement transactions; owner keys (taker, maker) are built in src/domain/trading-counters.ts. */
export const TradingStatsSchema = defineEntity({
  name: 'TradingStats',
  tableName: 'trading_stats',
  properties: {
    owner: p.text().primary(),
    openCount: p.integer().fieldName('open_count').default(0),
    openStake: p.bigint('string').fieldName('open_stake').default('0'),
    potentialPayout: p.bigint('string').fieldName('potential_payout').default('0'),
    settledCount: p.integer().fieldName('settled_count').default(0),
    wins: p.integer().default(0),
    losses: p.integer().default(0),
    voided: p.integer().default(0),
    realizedPnl: p.bigint('string').fieldName('realized_pnl').default('0'),
  },
});
