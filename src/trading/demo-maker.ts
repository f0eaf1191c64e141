// Runs the built-in demo market maker (src/domain/demo/maker.ts) in the API process of the embedded
// development default: it hears every new RFQ on the bus, like a connected maker hears `rfq` frames, and
// answers with a firm signed quote through the same rules a WebSocket quote goes through (submitQuote),
// valid until the RFQ expires, for the whole stake, at fair odds less a spread (the lifecycle's quote step,
// src/trading/rfq-lifecycle.ts, which publishes what the quote changed).
import { privateKeyToAccount } from 'viem/accounts';
import type { Logger } from 'pino';
import type { Em } from '../db/orm.js';
import { DEMO_MAKER_ADDRESS, DEMO_MAKER_KEY, demoMakerOddsBps, ensureDemoMaker } from '../domain/demo/maker.js';
import type { SettlementAdapter } from '../domain/settlement/adapter.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import { quoteTypedData, rfqDomainOf } from '../domain/rfq/typed-data.js';
import { rfqEventOf, type FrameEvent } from '../bus/rfq-payload.js';
import type { Bus } from '../bus/bus.js';
import type { RfqLifecycle } from './rfq-lifecycle.js';

export function startDemoMaker(deps: { bus: Bus; forkDb: () => Em; rfq: RfqDeps; trading: RfqLifecycle; log: Logger }): () => void {
  const account = privateKeyToAccount(DEMO_MAKER_KEY);
  const domain = rfqDomainOf(deps.rfq.settings);
  const log = deps.log.child({ component: 'demo-maker', wallet: account.address });
  const answer = async (e: FrameEvent<'rfq.open'>) => {
    const f = e.frame;
    const q = {
      rfq_id: f.rfq_id,
      maker: account.address,
      odds_bps: demoMakerOddsBps(f.legs.length),
      max_fill_micros: Number(f.stake_micros),
      valid_until_ms: f.expires_at_ms,
    };
    const signature = await account.signTypedData(quoteTypedData(domain, q));
    await deps.trading.quote(
      deps.forkDb(),
      account.address,
      { ...q, signature },
      (ack) => {
        if (ack.accepted) log.info({ rfq_id: f.rfq_id, odds_bps: q.odds_bps, quote_id: ack.quote_id }, 'demo maker quoted');
        else log.info({ rfq_id: f.rfq_id, error: ack.error }, 'demo maker quote refused');
      },
      log,
    );
  };
  log.info(
    'demo market maker running: it quotes every RFQ at fair odds less 5% (embedded development default; DEMO_DATA=false turns it off)',
  );
  return deps.bus.subscribe('rfq.open', (payload) => {
    const r = rfqEventOf('rfq.open', payload);
    if (!r.ok) return void log.warn({ why: r.why }, 'demo maker ignored a malformed rfq.open bus message');
    void answer(r.event).catch((err: unknown) => log.warn({ err }, 'demo maker could not quote'));
  });
}

/**
 * On the embedded development default (as the demo seed: DEMO_DATA, NODE_ENV=development, embedded): makes
 * sure the demo maker exists and is funded, then runs it. A failure is logged, never fatal. Returns stop().
 */
export async function startDemoMakerOnStart(deps: {
  allowed: boolean;
  bus: Bus;
  forkDb: () => Em;
  rfq: RfqDeps;
  trading: RfqLifecycle;
  settlement: SettlementAdapter;
  log: Logger;
}): Promise<() => void> {
  if (!deps.allowed) return () => undefined;
  try {
    if (await ensureDemoMaker(deps.forkDb(), deps.settlement)) {
      deps.log.info({ wallet: DEMO_MAKER_ADDRESS }, 'demo market maker registered and funded (demo collateral)');
    }
    return startDemoMaker(deps);
  } catch (err) {
    deps.log.error({ err }, 'the demo market maker could not start; RFQs get no quote unless a maker connects');
    return () => undefined;
  }
}
