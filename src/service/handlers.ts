// Every HTTP operation's handler (src/service.ts), each tag's from the features it needs. Deposits and
// withdrawals wait at most QUEUE_WAIT_MS for the queue, then answer 503 with Retry-After.
import type { Runtime } from '../runtime.js';
import type { Handlers } from '../http/handler.js';
import type { HttpMetrics } from '../http/metrics.js';
import type { DocumentStore } from '../http/docs/documents.js';
import { requireQueue } from '../http/queue-gate.js';
import { auditHandlers } from '../http/handlers/audit.js';
import { authHandlers } from '../http/handlers/auth.js';
import { balancesHandlers } from '../http/handlers/balances.js';
import { contestsHandlers } from '../http/handlers/contests.js';
import { documentsHandlers } from '../http/handlers/documents.js';
import { historyHandlers } from '../http/handlers/history.js';
import { marketMakersHandlers } from '../http/handlers/market-makers.js';
import { marketWindowsHandlers } from '../http/handlers/market-windows.js';
import { marketsHandlers } from '../http/handlers/markets.js';
import { mmTradingHandlers } from '../http/handlers/mm-trading.js';
import { operationsHandlers } from '../http/handlers/operations.js';
import { poolImagesHandlers } from '../http/handlers/pool-images.js';
import { positionsHandlers } from '../http/handlers/positions.js';
import { rfqMakerHandlers } from '../http/handlers/rfq-maker.js';
import { rfqTakerHandlers } from '../http/handlers/rfq-taker.js';
import { rfqHandlers } from '../http/handlers/rfq.js';
import { settlementReviewHandlers } from '../http/handlers/settlement-review.js';
import { systemStatusHandlers } from '../http/handlers/system-status.js';
import { usersHandlers } from '../http/handlers/users.js';
import { withdrawalReviewHandlers } from '../http/handlers/withdrawal-review.js';
import { siweUri } from '../domain/identity/siwe.js';
import type { Gateway } from '../ws/gateway.js';
import type { Access } from './access.js';
import type { Contests } from './contests.js';
import type { Money } from './money.js';
import type { Producers } from './producers.js';
import type { Rfq } from './rfq.js';
import type { Status } from './status.js';

export interface Features {
  access: Access;
  rfq: Rfq;
  gateway: Gateway;
  producers: Producers;
  status: Status;
  money: Money;
  contests: Contests;
  documents: DocumentStore;
  metrics: HttpMetrics;
}

export function allHandlers({ config, queues }: Runtime, f: Features): Handlers {
  const { money, settlement } = f.money;
  const { contests, identity } = f.contests;
  const { trading } = f.rfq;
  const handlers: Handlers = {
    ...documentsHandlers(f.documents, { publicUrl: config.publicUrl }),
    ...authHandlers({
      privy: f.access.privy,
      sessionTtlSeconds: config.sessionTtlSeconds,
      siwe: config.siwe,
      signIn: { uri: siweUri(config.siwe.domain, config.publicUrl), chainId: config.rfq.signingChainId },
      identity,
    }),
    ...usersHandlers({ identity }),
    ...balancesHandlers({ money, settlement }),
    ...historyHandlers({ confirmations: config.chain?.confirmations ?? null }),
    ...marketMakersHandlers({
      onRemoved: (wallet, rfqIds) => {
        f.gateway.endWallet(wallet); // this process's connections now; the others hear `mm.removed`
        void trading.makerRemoved(wallet, rfqIds);
      },
    }),
    ...marketsHandlers({ settings: config.markets }),
    ...poolImagesHandlers(),
    ...auditHandlers(),
    ...settlementReviewHandlers({ money }),
    ...withdrawalReviewHandlers({ money }),
    ...positionsHandlers(),
    ...mmTradingHandlers(),
    ...marketWindowsHandlers({ settings: config.markets, settlement: f.producers.windowSettlement }),
    ...contestsHandlers({ contests, caches: f.contests.caches }),
    ...rfqHandlers({ settings: config.rfq }),
    ...rfqTakerHandlers({ trading, waiters: f.rfq.waiters, admission: f.rfq.admission }),
    ...rfqMakerHandlers(),
    ...operationsHandlers(f.status.probes.readiness, f.metrics, config.metricsToken, config.metricsPort !== undefined),
    ...systemStatusHandlers(f.status.systemStatus),
  };
  return requireQueue(handlers, queues, config.queueWaitMs);
}
