// The RFQ side of the market-maker WebSocket (spec/asyncapi.yaml "RFQ quoting"; docs/trading.md, "The bus"): subscriptions, the fan-out of bus
// events to this process's connections, and quote intake. The gateway (gateway.ts) wires it in; every
// API process runs one, and the bus carries each event to all of them.
//
//   rfq.open   {frame}          -> `rfq` to every connection whose filters match at least one leg
//   rfq.closed {frame, route, results}
//                               -> `rfq_closed` to the connections matching the route, then each result's
//                                  `quote_result` to every connection of its maker's wallet
//   mm.event   {wallet, frame}  -> the frame (quote_result, position_settled, mmp_status) to every connection of the wallet
//   mm.removed {wallet}         -> ends that wallet's connections here at once (the heartbeat sweep is the backstop)
//
// Each bus payload is checked once on arrival (src/bus/rfq-payload.ts: the frame against its spec/asyncapi.yaml
// schema, in production too) and its frame serialized once, not per socket. The bus
// is at-most-once: nothing here is needed for correctness, makers reconcile over HTTP (GET /v1/mm/rfq/{id}).
import type { Bus, BusHandler } from '../bus/bus.js';
import type { RfqLifecycle } from '../trading/rfq-lifecycle.js';
import type { ServerMessage } from '../../generated/asyncapi/types.js';
import { rfqEventOf, type FrameEvent, type FrameTopic } from '../bus/rfq-payload.js';
import { send, sendText, type Connection, type GatewayContext } from './connection.js';
import type { ClientMessageHandlers } from './messages.js';
import { notAuthenticatedFrame, serializeServerMessage, type ParsedFrame } from './protocol.js';
import { effectiveFilters, SubscriptionIndex, type RfqFilters } from './rfq-index.js';
import { TokenBucket } from './token-bucket.js';

export interface RfqStreamSettings {
  /** The lifecycle's steps (src/trading/rfq-lifecycle.ts): quote, quote_cancel and cancel on disconnect, published after commit. */
  trading: RfqLifecycle;
  /** What a subscription may name: the deployment's MARKET_ASSETS and MARKET_DURATIONS. */
  offered: RfqFilters;
  /** MM_MAX_QUOTES_PER_SECOND: one budget per connection for its quotes, cancels and subscribes. */
  maxQuotesPerSecond: number;
}

export interface RfqStream {
  handlers: Pick<ClientMessageHandlers<Connection>, 'subscribe' | 'quote' | 'quote_cancel'>;
  /**
   * A frame of an authenticated connection, at arrival: a subscribe, quote or quote_cancel takes a token
   * of the connection's budget (null), or gets why not (it is answered `rate_limited`, nothing is done).
   */
  admit(c: Connection, frame: ParsedFrame): string | null;
  /** A connection authenticated: mm.event frames for its wallet reach it from now on. */
  authenticated(c: Connection): void;
  /** A connection closed: drop its subscription and its place under its wallet. */
  forget(c: Connection): void;
  /** Stops listening to the bus (shutdown). */
  stop(): void;
  /** Resolves once the cancel-on-disconnect withdrawals under way are done (shutdown waits for them). */
  settled(): Promise<void>;
}

type RfqStreamHandlers = RfqStream['handlers'];

export function createRfqStream(ctx: GatewayContext, bus: Bus, settings: RfqStreamSettings, endWallet: (wallet: string) => void): RfqStream {
  const { log } = ctx;
  const index = new SubscriptionIndex<Connection>();
  const budgets = new WeakMap<Connection, TokenBucket>();
  /** Authenticated connections by lowercase wallet: an mm.event costs its wallet's connections, not all of them. */
  const byWallet = new Map<string, Set<Connection>>();
  const walletKey = (c: Connection) => c.session?.walletAddress.toLowerCase();
  /** Connections whose last subscribe asked for cancel on disconnect. */
  const cancelOnDisconnect = new WeakSet<Connection>();
  const withdrawals = new Set<Promise<void>>();

  /** Cancel on disconnect: withdraws the wallet's live quotes and tells its other connections (any process). */
  const withdrawFor = (wallet: string) => {
    const p = settings.trading
      .withdrawQuotes(ctx.orm.em.fork(), wallet, log)
      .then((withdrawn) => log.info({ wallet, withdrawn }, 'cancel on disconnect: live quotes withdrawn'))
      .catch((err: unknown) => log.error({ err, wallet }, 'cancel on disconnect failed; the quotes stay live until they expire or fill'))
      .finally(() => withdrawals.delete(p));
    withdrawals.add(p);
  };

  const takeBudget = (c: Connection): boolean => {
    const now = Date.now();
    let b = budgets.get(c);
    if (!b) budgets.set(c, (b = new TokenBucket(settings.maxQuotesPerSecond, now)));
    return b.take(now);
  };

  /** The wallet of an authenticated connection; otherwise answers `error` not_authenticated and returns null. */
  const walletOf = (c: Connection, what: string): string | null => {
    if (c.session) return c.session.walletAddress;
    send(ctx, c, notAuthenticatedFrame(what));
    return null;
  };

  const budgeted = (frame: ParsedFrame): boolean =>
    frame.kind === 'quote_refused' ||
    (frame.kind === 'message' && (frame.message.type === 'quote' || frame.message.type === 'quote_cancel' || frame.message.type === 'subscribe'));

  const admit = (c: Connection, frame: ParsedFrame): string | null =>
    !budgeted(frame) || takeBudget(c)
      ? null
      : `more than ${settings.maxQuotesPerSecond} subscribes, quotes and cancels per second on this connection`;

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
    const sent = broadcast(frame, index.forLegs(frame.legs));
    log.debug({ rfq_id: frame.rfq_id, connections: sent }, 'rfq sent to subscribed market makers');
  });

  const onRfqClosed = onEvent('rfq.closed', ({ frame, route, results }) => {
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

  const handlers: RfqStreamHandlers = {
    subscribe: (c, m) => {
      if (!walletOf(c, 'subscribe')) return;
      const f = effectiveFilters(m, settings.offered);
      index.set(c, f);
      if (m.cancel_on_disconnect) cancelOnDisconnect.add(c);
      else cancelOnDisconnect.delete(c);
      send(ctx, c, { type: 'subscribed', assets: [...f.assets], durations: [...f.durations], cancel_on_disconnect: m.cancel_on_disconnect === true });
      log.info({ conn_id: c.id, wallet: c.session?.walletAddress, assets: f.assets, durations: f.durations }, 'market maker subscribed to RFQs');
    },

    quote: async (c, m) => {
      const wallet = walletOf(c, 'quote');
      if (!wallet) return;
      await settings.trading.quote(
        ctx.orm.em.fork(),
        wallet,
        {
          rfq_id: m.rfq_id,
          odds_bps: m.odds_bps,
          max_fill_micros: m.max_fill_micros,
          valid_until_ms: m.valid_until_ms,
          client_quote_id: m.client_quote_id ?? null,
          signature: m.signature,
        },
        (ack) => {
          send(ctx, c, ack);
          log.debug({ conn_id: c.id, wallet, rfq_id: m.rfq_id, quote_id: ack.quote_id, error: ack.error }, 'quote handled');
        },
        log,
      );
    },

    quote_cancel: async (c, m) => {
      const wallet = walletOf(c, 'quote_cancel');
      if (!wallet) return;
      await settings.trading.cancelQuote(ctx.orm.em.fork(), wallet, m.rfq_id, m.quote_id, (ack) => send(ctx, c, ack), log);
    },
  };

  return {
    handlers,
    admit,
    authenticated(c) {
      const w = walletKey(c);
      if (!w) return;
      let set = byWallet.get(w);
      if (!set) byWallet.set(w, (set = new Set()));
      set.add(c);
    },
    forget(c) {
      index.remove(c);
      const w = walletKey(c);
      const set = w ? byWallet.get(w) : undefined;
      set?.delete(c);
      if (w && set?.size === 0) byWallet.delete(w);
      if (w && cancelOnDisconnect.has(c) && !byWallet.has(w)) withdrawFor(w);
    },
    stop: () => {
      for (const off of unsubscribe) off();
    },
    settled: async () => {
      await Promise.all([...withdrawals]);
    },
  };
}
