// The taker's positions, portfolio and PnL history (spec/openapi.yaml; docs/trading.md, "PnL"). Reads only: the figures are
// kept by the fill and settlement transactions, so each route is one domain read.
import { clampLimit } from '../../domain/contests/lobby.js';
import { getPortfolio, getPosition, listPositions, pnlHistory } from '../../domain/positions/portfolio.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { requireUser } from './principal.js';
import { pnlEventWire, portfolioWire, positionWire } from './positions-wire.js';

export const POSITIONS_LIMIT = { default: 50, max: 100 } as const;
export const limitOf = (n: number | undefined) =>
  clampLimit(n === undefined ? undefined : Number(n), POSITIONS_LIMIT.default, POSITIONS_LIMIT.max);
/** Query integers are validated by the spec; Number() keeps a handler right should one arrive as its text. */
const msOf = (n: number | undefined) => (n === undefined ? undefined : Number(n));
// Per-user figures that change with every fill and settlement.

export function positionsHandlers(): HandlersFor<'listPositions' | 'getPosition' | 'getPortfolio' | 'getPnlHistory'> {
  return {
    listPositions: async ({ query }, { db, auth }) => {
      const user = requireUser(auth);
      const page = await listPositions(db, user.userId, { status: query.status, limit: limitOf(query.limit), cursor: query.cursor });
      return { status: 200, body: { positions: page.positions.map(positionWire), next_cursor: page.nextCursor }, headers: NO_STORE };
    },
    getPosition: async ({ params }, { db, auth }) => {
      const user = requireUser(auth);
      return { status: 200, body: positionWire(await getPosition(db, user.userId, params.position_id)), headers: NO_STORE };
    },
    getPortfolio: async (_req, { db, auth }) => {
      const user = requireUser(auth);
      const figures = await getPortfolio(db, user.userId);
      return { status: 200, body: portfolioWire(figures, Date.now()), headers: NO_STORE };
    },
    getPnlHistory: async ({ query }, { db, auth }) => {
      const user = requireUser(auth);
      const page = await pnlHistory(db, user.userId, {
        fromMs: msOf(query.from_ms),
        toMs: msOf(query.to_ms),
        limit: limitOf(query.limit),
        cursor: query.cursor,
      });
      return { status: 200, body: { events: page.events.map(pnlEventWire), next_cursor: page.nextCursor }, headers: NO_STORE };
    },
  };
}
