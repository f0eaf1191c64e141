// Market-maker trading reads (spec/openapi.yaml; docs/trading.md, "PnL"): a taker's lifetime
// stats to price its flow (getTakerPnl ?wallet=), the maker's own figures (getMakerPnl) and its fills
// (listMakerFills). Each is one read of counters kept by the fill and settlement transactions.
import type { MakerPnl, TakerPnl } from '../../../generated/openapi/types.gen.js';
import { Unauthorized } from '../../domain/errors.js';
import { listMakerFills, makerFigures, takerStatsByWallet } from '../../domain/positions/portfolio.js';
import type { Auth } from '../auth.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { limitOf } from './positions.js';
import { makerFillWire } from './positions-wire.js';
import { checksummed } from './rfq-wire.js';

function requireMarketMaker(auth: Auth): { walletAddress: string } {
  if (auth.kind !== 'market_maker') throw new Unauthorized();
  return auth;
}

/** EIP-55 form whatever the case sent (the query accepts any case, like the market-maker path parameter). */

export function mmTradingHandlers(): HandlersFor<'getTakerPnl' | 'getMakerPnl' | 'listMakerFills'> {
  return {
    getTakerPnl: async ({ query }, { db, auth }) => {
      requireMarketMaker(auth);
      const { walletAddress, stats } = await takerStatsByWallet(db, query.wallet);
      const body: TakerPnl = {
        wallet_address: checksummed(walletAddress),
        stats: stats && {
          total_pnl_micros: stats.realizedPnlMicros.toString(),
          total_positions: stats.openPositions + stats.settledPositions,
          open_positions: stats.openPositions,
          wins: stats.wins,
          losses: stats.losses,
        },
      };
      return { status: 200, body, headers: NO_STORE };
    },
    getMakerPnl: async (_req, { db, auth }) => {
      const mm = requireMarketMaker(auth);
      const f = await makerFigures(db, mm.walletAddress);
      const body: MakerPnl = {
        wallet_address: checksummed(mm.walletAddress),
        realized_pnl_micros: f.realizedPnlMicros.toString(),
        trade_count: f.settledPositions,
        // The maker's counters hold the open liability where a taker's hold the open stake.
        open_liability_micros: f.openStakeMicros.toString(),
        as_of_ms: Date.now(),
      };
      return { status: 200, body, headers: NO_STORE };
    },
    listMakerFills: async ({ query }, { db, auth }) => {
      const mm = requireMarketMaker(auth);
      const page = await listMakerFills(db, mm.walletAddress, { status: query.status, limit: limitOf(query.limit), cursor: query.cursor });
      return { status: 200, body: { fills: page.fills.map(makerFillWire), next_cursor: page.nextCursor }, headers: NO_STORE };
    },
  };
}
