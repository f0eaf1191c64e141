// The RFQ side of the market-maker WebSocket (spec/asyncapi.yaml "RFQ quoting"; docs/trading.md, "The bus"): the
// fan-out of bus events to this process's connections (rfq-fanout.ts) and the intake of subscribe, quote and
// quote_cancel (rfq-intake.ts), sharing one subscription index. The gateway (gateway.ts) wires it in; every
// API process runs one, and the bus carries each event to all of them.
import type { Bus } from '../bus/bus.js';
import type { Connection, GatewayContext } from './connection.js';
import type { ClientMessageHandlers } from './messages.js';
import type { ParsedFrame } from './protocol.js';
import { SubscriptionIndex } from './rfq-index.js';
import { createRfqFanOut } from './rfq-fanout.js';
import { createRfqIntake, type RfqIntakeSettings } from './rfq-intake.js';
import { RfqClosingTimes } from './rfq-closing-times.js';

export type RfqStreamSettings = RfqIntakeSettings;

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

export function createRfqStream(
  ctx: GatewayContext,
  bus: Bus,
  settings: RfqStreamSettings,
  endWallet: (wallet: string) => void,
): RfqStream {
  const index = new SubscriptionIndex<Connection>();
  // When each RFQ heard of on the bus stops taking quotes: kept by the fan-out, read by the intake (rfq-closing-times.ts).
  const closingTimes = new RfqClosingTimes();
  const intake = createRfqIntake(ctx, settings, index, closingTimes);
  const fanOut = createRfqFanOut(ctx, bus, index, endWallet, closingTimes);
  return {
    handlers: intake.handlers,
    admit: intake.admit,
    authenticated: fanOut.authenticated,
    forget(c) {
      index.remove(c);
      const w = fanOut.forget(c);
      if (w && !fanOut.holds(w)) intake.lastConnectionClosed(c, w);
    },
    stop: fanOut.stop,
    settled: intake.settled,
  };
}
