// The fan-out of the RFQ stream (rfq-stream.ts; spec/asyncapi.yaml "RFQ quoting"; docs/trading.md, "The bus"):
// bus events to this process's connections. Every API process runs one, and the bus carries each event to
// all of them.
//
//   rfq.open   {frame}          -> `rfq` to every connection whose filters match at least one leg; the RFQ's
//                                  closing time noted (rfq-closing-times.ts)
//   rfq.closed {frame, route, results}
//                               -> `rfq_closed` to the connections matching the route, then each result's
//                                  `quote_result` to every connection of its maker's wallet; the closing time dropped
//   mm.event   {wallet, frame}  -> the frame (quote_result, position_settled, mmp_status) to every connection of the wallet
//   mm.removed {wallet}         -> ends that wallet's connections here at once (the heartbeat sweep is the backstop)
//
// Each bus payload is checked once on arrival (src/bus/rfq-payload.ts: the frame against its spec/asyncapi.yaml
// schema, in production too) and its frame serialized once, not per socket. The bus
// is at-most-once: nothing here is needed for correctness, makers reconcile over HTTP (GET /v1/mm/rfq/{id}).
import type { Bus, BusHandler } from '../bus/bus.js';
import type { ServerMessage } from '../../generated/asyncapi/types.js';
import { rfqEventOf, type FrameEvent, type FrameTopic } from '../bus/rfq-payload.js';
import { sendText, type Connection, type GatewayContext } from './connection.js';
import { serializeServerMessage } from './protocol.js';
import type { SubscriptionIndex } from './rfq-index.js';
import type { RfqClosingTimes } from './rfq-closing-times.js';

export interface RfqFanOut {
  /** A connection authenticated: mm.event frames for its wallet reach it from now on. */
  authenticated(c: Connection): void;
  /** A connection closed: drops its place under its wallet; returns that wallet (lowercase), if any. */
  forget(c: Connection): string | undefined;
  /** Whether this process still holds an authenticated connection of the wallet (lowercase). */
  holds(wallet: string): boolean;
  /** Stops listening to the bus (shutdown). */
  stop(): void;
}

/** `index`: the subscriptions, kept by the intake (rfq-intake.ts). `endWallet`: ends a removed maker's connections. */
/** Authenticated connections by lowercase wallet: an mm.event costs its wallet's connections, not all of them. */
class WalletConnections {
  private readonly byWallet = new Map<string, Set<Connection>>();
  private static key = (c: Connection) => c.session?.walletAddress.toLowerCase();

  add(c: Connection): void {
    const w = WalletConnections.key(c);
    if (!w) return;
    let set = this.byWallet.get(w);
    if (!set) this.byWallet.set(w, (set = new Set()));
    set.add(c);
  }

  /** Removes `c`; its wallet key (lowercase), if it had one. */
  forget(c: Connection): string | undefined {
    const w = WalletConnections.key(c);
    const set = w ? this.byWallet.get(w) : undefined;
    set?.delete(c);
    if (w && set?.size === 0) this.byWallet.delete(w);
    return w;
  }

  get(wallet: string): Set<Connection> | undefined {
    return this.byWallet.get(wallet);
  }

  has(wallet: string): boolean {
    return this.byWallet.has(wallet);
  }
}

export function createRfqFanOut(
  ctx: GatewayContext,
  bus: Bus,
  index: SubscriptionIndex<Connection>,
  endWallet: (wallet: string) => void,
  closingTimes?: RfqClosingTimes,
): RfqFanOut {
  const { log } = ctx;
  const byWallet = new WalletConnections();

  /**
   * Serializes once, then sends to each open authenticated connection. The frame was checked against its
   * schema on arrival (rfqEventOf), so it is not checked again here.
   */
  const broadcast = (frame: ServerMessage, to: Iterable<Connection>): number => {
    const text = serializeServerMessage(frame, false);
    let sent = 0;
    for (const c of to) if (c.session && !c.ending && sendText(ctx, c, text)) sent += 1;
    return sent;
  };

  /** A subscriber of a frame topic: gets the event checked by rfqEventOf; a payload that fails is logged and dropped. */
  const onEvent =
    <T extends FrameTopic>(topic: T, fn: (e: FrameEvent<T>) => void): BusHandler =>
    (payload) => {
      const r = rfqEventOf(topic, payload);
      if (!r.ok) return void log.error({ payload, why: r.why }, `malformed ${topic} bus message ignored`);
      fn(r.event);
    };

  const onRfqOpen = onEvent('rfq.open', ({ frame }) => {
    closingTimes?.opened(frame);
    const sent = broadcast(frame, index.forLegs(frame.legs));
    log.debug({ rfq_id: frame.rfq_id, connections: sent }, 'rfq sent to subscribed market makers');
  });

  const onRfqClosed = onEvent('rfq.closed', ({ frame, route, results }) => {
    closingTimes?.closed(frame.rfq_id);
    broadcast(frame, index.forLegs(route.legs));
    // The close's quote outcomes ride in the same bus message (one per close, not one mm.event per quote).
    for (const r of results) {
      const to = byWallet.get(r.wallet.toLowerCase());
      if (to?.size) broadcast(r.frame, to);
    }
  });

  const onMmEvent = onEvent('mm.event', ({ wallet, frame }) => {
    const to = byWallet.get(wallet.toLowerCase());
    if (to?.size) broadcast(frame, to);
  });

  const onMmRemoved: BusHandler = (payload, meta) => {
    const wallet = (payload as { wallet?: unknown } | null)?.wallet;
    if (typeof wallet !== 'string') return void log.warn({ payload }, 'malformed mm.removed bus message ignored');
    if (meta.local) return; // the removing process ended its own connections before publishing
    endWallet(wallet);
  };

  const unsubscribe = [
    bus.subscribe('rfq.open', onRfqOpen),
    bus.subscribe('rfq.closed', onRfqClosed),
    bus.subscribe('mm.event', onMmEvent),
    bus.subscribe('mm.removed', onMmRemoved),
  ];

  return {
    authenticated: (c) => byWallet.add(c),
    forget: (c) => byWallet.forget(c),
    holds: (wallet) => byWallet.has(wallet),
    stop: () => {
      for (const off of unsubscribe) off();
    },
  };
}
