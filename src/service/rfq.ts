// RFQ trading (src/service.ts): the settings shared by the HTTP handlers, the WebSocket stream and the demo
// maker, the RFQ lifecycle, getRfq's long-poll waiters and POST /v1/rfq's admission.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Runtime } from '../runtime.js';
import type { Em } from '../db/orm.js';
import { rfqDepsOf } from '../domain/rfq/deps.js';
import { createRfqLifecycle } from '../trading/rfq-lifecycle.js';
import { createRfqWaiters } from '../trading/rfq-wait.js';
import { createRfqAdmission } from '../http/admission.js';

export type Rfq = ReturnType<typeof openRfq>;

export function openRfq(rt: Runtime, forkDb: () => Em, registry: Registry) {
  const { config, logger } = rt;
  const rfqDeps = rfqDepsOf(config);
  // The RFQ lifecycle's steps, the only publisher of RFQ events. This process closes the RFQs it created at
  // their due time (the sweeper is the backstop).
  const quoteAcks = new Counter({
    name: 'rfq_quote_acks_total',
    help: 'quotes the quote rule answered on this process, by result: accepted, or the quote_ack error (rfq_closed: the RFQ had closed or stopped taking quotes); refusals at the gateway (rate_limited, malformed_quote) are not counted',
    labelNames: ['result'],
    registers: [registry],
  });
  const trading = createRfqLifecycle({
    forkDb,
    bus: rt.bus,
    rfq: rfqDeps,
    log: logger,
    quoteAnswered: (ack) => quoteAcks.labels(ack.error ?? 'accepted').inc(),
  });
  // getRfq long-polls, woken from the bus.
  const waiters = createRfqWaiters(rt.bus, { max: config.rfq.maxWaiters, maxPerUser: config.rfq.maxWaitersPerUser });
  new Gauge({
    name: 'rfq_long_poll_waiters',
    help: 'GET /v1/rfq/{rfq_id}?wait_ms long-polls this process holds (RFQ_MAX_WAITERS, RFQ_MAX_WAITERS_PER_USER)',
    registers: [registry],
    collect() {
      this.set(waiters.size());
    },
  });
  // POST /v1/rfq refused at the door when this process is over its threshold (docs/trading.md, "Under overload").
  const admission = createRfqAdmission({ ...config.rfq.admission, quoteWindowMs: config.rfq.quoteWindowMs }, { registry });
  return { rfqDeps, trading, waiters, admission };
}
