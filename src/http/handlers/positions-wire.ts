// Domain records of positions and PnL to their wire shapes (spec: Position, Portfolio, PnlEvent, MakerFill):
// amounts as decimal strings, snake_case, mapped once here for the taker and market-maker routes.
import type { MakerFill, PnlEvent as PnlEventWire, Portfolio, Position, PositionLeg } from '../../../generated/openapi/types.gen.js';
import type { MakerFillRecord, PnlEvent, PositionLegRecord, PositionRecord, TradingFigures } from '../../domain/positions/portfolio.js';

const dec = (v: bigint) => v.toString();
const decOrNull = (v: bigint | null) => (v === null ? null : v.toString());

export function positionWire(p: PositionRecord): Position {
  return {
    position_id: p.id,
    rfq_id: p.rfqId,
    role: 'taker',
    status: p.status,
    stake_micros: dec(p.stakeMicros),
    odds_bps: p.oddsBps,
    payout_micros: dec(p.payoutMicros),
    pnl_micros: decOrNull(p.pnlMicros),
    created_at_ms: p.createdAtMs,
    resolved_at_ms: p.resolvedAtMs,
    legs: p.legs.map(legWire),
  };
}

function legWire(l: PositionLegRecord): PositionLeg {
  return {
    leg_index: l.legIndex,
    market_id: l.marketId,
    asset: l.asset,
    duration_secs: l.durationSecs,
    window_start_ms: l.windowStartMs,
    end_at_ms: l.endAtMs,
    direction: l.direction,
    outcome: l.outcome,
  };
}

export function portfolioWire(f: TradingFigures, asOfMs: number): Portfolio {
  return {
    open_positions: f.openPositions,
    open_stake_micros: dec(f.openStakeMicros),
    potential_payout_micros: dec(f.potentialPayoutMicros),
    settled_positions: f.settledPositions,
    wins: f.wins,
    losses: f.losses,
    voided: f.voided,
    realized_pnl_micros: dec(f.realizedPnlMicros),
    as_of_ms: asOfMs,
  };
}

export function pnlEventWire(e: PnlEvent): PnlEventWire {
  return {
    position_id: e.positionId,
    resolved_at_ms: e.resolvedAtMs,
    pnl_micros: dec(e.pnlMicros),
    cumulative_micros: dec(e.cumulativeMicros),
  };
}

export function makerFillWire(f: MakerFillRecord): MakerFill {
  return {
    fill_id: f.fillId,
    position_id: f.positionId,
    rfq_id: f.rfqId,
    quote_id: f.quoteId,
    stake_micros: dec(f.stakeMicros),
    odds_bps: f.oddsBps,
    liability_micros: dec(f.liabilityMicros),
    status: f.status,
    maker_pnl_micros: decOrNull(f.makerPnlMicros),
    created_at_ms: f.createdAtMs,
    legs: f.legs.map(legWire),
  };
}
