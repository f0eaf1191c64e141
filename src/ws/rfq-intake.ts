// The intake of the RFQ stream (rfq-stream.ts; spec/asyncapi.yaml "RFQ quoting"): subscribe, quote and
// quote_cancel from authenticated market makers, each connection's budget for them, and cancel on disconnect.
// The lifecycle (src/trading/rfq-lifecycle.ts) does the work and publishes after commit.
import type { RfqLifecycle } from '../trading/rfq-lifecycle.js';
import { send, type Connection, type GatewayContext } from './connection.js';
import type { ClientMessageHandlers } from './messages.js';
import { notAuthenticatedFrame, type ParsedFrame } from './protocol.js';
import { effectiveFilters, type RfqFilters, type SubscriptionIndex } from './rfq-index.js';
import { TokenBucket } from './token-bucket.js';
import type { RfqClosingTimes } from './rfq-closing-times.js';

export interface RfqIntakeSettings {
  /** The lifecycle's steps (src/trading/rfq-lifecycle.ts): quote, quote_cancel and cancel on disconnect, published after commit. */
  trading: RfqLifecycle;
  /** What a subscription may name: the deployment's MARKET_ASSETS and MARKET_DURATIONS. */
  offered: RfqFilters;
  /** MM_MAX_QUOTES_PER_SECOND: one budget per connection for its quotes, cancels and subscribes. */
  maxQuotesPerSecond: number;
}

export interface RfqIntake {
  handlers: Pick<ClientMessageHandlers<Connection>, 'subscribe' | 'quote' | 'quote_cancel'>;
  /** A subscribe, quote or quote_cancel takes a token of the connection's budget (null), or gets why not. */
  admit(c: Connection, frame: ParsedFrame): string | null;
  /** The wallet's last connection here closed with `c`: withdraws its live quotes if `c` asked for cancel on disconnect. */
  lastConnectionClosed(c: Connection, wallet: string): void;
  /** Resolves once the cancel-on-disconnect withdrawals under way are done. */
  settled(): Promise<void>;
}

/**
 * `index`: the subscriptions a subscribe sets, read by the fan-out (rfq-fanout.ts). `closingTimes`: when the RFQs
 * the fan-out heard of stop taking quotes; a quote handled after that is refused without database work.
 */
export function createRfqIntake(
  ctx: GatewayContext,
  settings: RfqIntakeSettings,
  index: SubscriptionIndex<Connection>,
  closingTimes?: RfqClosingTimes,
): RfqIntake {
  const { log } = ctx;
  /** Connections whose last subscribe asked for cancel on disconnect. */
  const cancelOnDisconnect = new WeakSet<Connection>();
  const withdrawals = cancelOnDisconnectWithdrawals(ctx, settings.trading);

  /** The wallet of an authenticated connection; otherwise answers `error` not_authenticated and returns null. */
  const walletOf = (c: Connection, what: string): string | null => {
    if (c.session) return c.session.walletAddress;
    send(ctx, c, notAuthenticatedFrame(what));
    return null;
  };

  const handlers: RfqIntake['handlers'] = {
    subscribe: (c, m) => {
      if (!walletOf(c, 'subscribe')) return;
      const f = effectiveFilters(m, settings.offered);
      index.set(c, f);
      if (m.cancel_on_disconnect) cancelOnDisconnect.add(c);
      else cancelOnDisconnect.delete(c);
      send(ctx, c, {
        type: 'subscribed',
        assets: [...f.assets],
        durations: [...f.durations],
        cancel_on_disconnect: m.cancel_on_disconnect === true,
      });
      log.info(
        { conn_id: c.id, wallet: c.session?.walletAddress, assets: f.assets, durations: f.durations },
        'market maker subscribed to RFQs',
      );
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
        closingTimes?.closesAt(m.rfq_id),
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
    admit: createAdmit(settings.maxQuotesPerSecond),
    lastConnectionClosed(c, wallet) {
      if (cancelOnDisconnect.has(c)) withdrawals.withdrawFor(wallet);
    },
    settled: () => withdrawals.settled(),
  };
}

/** Cancel on disconnect: withdraws a wallet's live quotes and tells its other connections (any process). */
function cancelOnDisconnectWithdrawals(ctx: GatewayContext, trading: RfqLifecycle) {
  const { log } = ctx;
  const underWay = new Set<Promise<void>>();
  return {
    withdrawFor(wallet: string): void {
      const p = trading
        .withdrawQuotes(ctx.orm.em.fork(), wallet, log)
        .then((withdrawn) => log.info({ wallet, withdrawn }, 'cancel on disconnect: live quotes withdrawn'))
        .catch((err: unknown) => log.error({ err, wallet }, 'cancel on disconnect failed; the quotes stay live until they expire or fill'))
        .finally(() => underWay.delete(p));
      underWay.add(p);
    },
    /** Resolves once the withdrawals under way are done. */
    async settled(): Promise<void> {
      await Promise.all([...underWay]);
    },
  };
}

const budgeted = (frame: ParsedFrame): boolean =>
  frame.kind === 'quote_refused' ||
  (frame.kind === 'message' &&
    (frame.message.type === 'quote' || frame.message.type === 'quote_cancel' || frame.message.type === 'subscribe'));

/** RfqIntake.admit: one token bucket per connection, of `maxQuotesPerSecond`, for its subscribes, quotes and cancels. */
function createAdmit(maxQuotesPerSecond: number): RfqIntake['admit'] {
  const budgets = new WeakMap<Connection, TokenBucket>();
  const takeBudget = (c: Connection): boolean => {
    const now = Date.now();
    let b = budgets.get(c);
    if (!b) budgets.set(c, (b = new TokenBucket(maxQuotesPerSecond, now)));
    return b.take(now);
  };
  return (c, frame) =>
    !budgeted(frame) || takeBudget(c)
      ? null
      : `more than ${maxQuotesPerSecond} subscribes, quotes and cancels per second on this connection`;
}
