// Market-maker protection on the WebSocket (spec/asyncapi.yaml mmp_set, mmp_reset, mmp_status): the
// maker's limits are stored per wallet (src/domain/rfq/mmp.ts), so they hold on every connection and
// every process; the fill trips them and the trip's mmp_status reaches the wallet's connections through
// the bus (mm.event, src/ws/rfq-fanout.ts).
import { resetProtection, setProtection } from '../domain/rfq/mmp.js';
import { send, type Connection, type GatewayContext } from './connection.js';
import type { ClientMessageHandlers } from './messages.js';
import { errorFrame, notAuthenticatedFrame } from './protocol.js';

export function mmpHandlers(ctx: GatewayContext): Pick<ClientMessageHandlers<Connection>, 'mmp_set' | 'mmp_reset'> {
  const walletOf = (c: Connection, what: string): string | null => {
    if (c.session) return c.session.walletAddress;
    send(ctx, c, notAuthenticatedFrame(what));
    return null;
  };
  return {
    mmp_set: async (c, m) => {
      const wallet = walletOf(c, 'mmp_set');
      if (!wallet) return;
      const maxFills = m.max_fills ?? null;
      const maxLiability = m.max_liability_micros ?? null;
      if (maxFills === null && maxLiability === null) {
        return void send(ctx, c, errorFrame('malformed_message', 'mmp_set needs max_fills, max_liability_micros or both'));
      }
      const status = await setProtection(ctx.orm.em.fork(), wallet, {
        intervalMs: m.interval_ms,
        maxFills,
        maxLiabilityMicros: maxLiability === null ? null : BigInt(maxLiability),
      });
      ctx.log.info({ conn_id: c.id, wallet, mmp: status }, 'market-maker protection set');
      send(ctx, c, status);
    },
    mmp_reset: async (c) => {
      const wallet = walletOf(c, 'mmp_reset');
      if (!wallet) return;
      const status = await resetProtection(ctx.orm.em.fork(), wallet);
      ctx.log.info({ conn_id: c.id, wallet }, 'market-maker protection reset');
      send(ctx, c, status);
    },
  };
}
