// Operator API for market makers (register, remove). The market-maker trading routes are in mm-trading.ts.
import type { MarketMaker } from '../../../generated/openapi/types.gen.js';
import { registerMarketMaker, removeMarketMaker } from '../../domain/market-makers/market-makers.js';
import type { HandlersFor } from '../handler.js';

export interface MarketMakerHandlerDeps {
  /**
   * Called after a removal commits with the RFQs whose quotes it withdrew: the gateway ends the wallet's
   * connections at once and those RFQs' watchers are woken (not awaited: the 204 does not wait on the bus).
   */
  onRemoved?: (walletAddress: string, rfqIds: string[]) => void;
}

export function marketMakersHandlers(deps: MarketMakerHandlerDeps): HandlersFor<'createMarketMaker' | 'deleteMarketMaker'> {
  return {
    createMarketMaker: async (req, { db, log, audit }) => {
      const { wallet_address, name } = req.body;
      const mm = await audit.within(
        db,
        (tx) => registerMarketMaker(tx, wallet_address, name),
        (m) => m.walletAddress,
      );
      log.info({ wallet: mm.walletAddress }, 'market maker registered');
      const body: MarketMaker = { wallet_address: mm.walletAddress, name: mm.name, created_at_ms: mm.createdAtMs };
      return { status: 201, body };
    },
    deleteMarketMaker: async ({ params }, { db, log, audit }) => {
      const removed = await audit.within(
        db,
        (tx) => removeMarketMaker(tx, params.wallet_address),
        (r) => r.walletAddress,
      );
      log.info(
        { wallet: removed.walletAddress, revoked_sessions: removed.revokedSessions, withdrawn_quotes: removed.withdrawnQuotes.length },
        'market maker removed; its sessions are revoked and its live quotes cancelled',
      );
      deps.onRemoved?.(removed.walletAddress, [...new Set(removed.withdrawnQuotes.map((q) => q.rfqId))]);
      return { status: 204 };
    },
  };
}
