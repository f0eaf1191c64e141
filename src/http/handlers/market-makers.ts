// Operator API for market makers (register, remove). The market-maker trading routes are in mm-trading.ts.
import type { MarketMaker } from '../../../generated/openapi/types.gen.js';
import { registerMarketMaker, removeMarketMaker } from '../../domain/market-makers/market-makers.js';
import type { HandlersFor } from '../handler.js';

export interface MarketMakerHandlerDeps {
  /** Called after a removal commits; the gateway ends this process's connections of the wallet at once. */
  onRemoved?: (walletAddress: string) => void;
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
      log.info({ wallet: removed.walletAddress, revoked_sessions: removed.revokedSessions }, 'market maker removed; its sessions are revoked');
      deps.onRemoved?.(removed.walletAddress);
      return { status: 204 };
    },
  };
}
