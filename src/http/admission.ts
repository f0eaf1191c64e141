// Admission control of POST /v1/rfq (docs/trading.md, "Under overload"): a process that cannot complete
// more RFQs within their quote window refuses new ones at the door, 503 OVERLOADED with Retry-After,
// before anything is checked, stored or reserved, so that what it accepts completes. Two signals, either
// refuses:
// - RFQs in flight on this process (createRfq requests admitted and not yet answered; a best-mode request
//   lasts its quote window) against RFQ_ADMISSION_MAX_IN_FLIGHT: immediate, it bounds the work a burst
//   commits this process to before any delay can be measured. 0 admits none (drains the process).
// - Event-loop delay (perf_hooks monitorEventLoopDelay): the 90th percentile of how late this process's
//   timers ran over the last second, against RFQ_ADMISSION_MAX_LOOP_DELAY_MS. Every step of an RFQ
//   (its fan-out, each maker's quote, the close at the deadline) waits that long behind the backlog, so
//   it measures directly whether the quote window can still be kept. 0 turns it off.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../domain/errors.js';

export interface AdmissionSettings {
  /** createRfq requests in progress on this process at most; 0: none admitted. */
  maxInFlight: number;
  /** p90 event-loop delay (ms) over the last second at most; 0: not watched. */
  maxLoopDelayMs: number;
  /** RFQ_QUOTE_WINDOW_MS: Retry-After covers one window (RFQs in flight have answered by then). */
  quoteWindowMs: number;
}

export type AdmissionRefusal = 'in_flight' | 'loop_delay';

export interface RfqAdmission {
  /** Takes a slot for one createRfq, or throws 503 OVERLOADED; call the returned release once it has answered. */
  admit(): () => void;
  inFlight(): number;
  /** The last second's p90 event-loop delay in ms (0 when not watched). */
  loopDelayMs(): number;
  refused(reason: AdmissionRefusal): number;
  stop(): void;
}

const SAMPLE_EVERY_MS = 1000;

/** The event-loop delay sampler: the p90 (ms) of the last completed second. */
export function sampleLoopDelay(): { read: () => number; stop: () => void } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let last = 0;
  const timer = setInterval(() => {
    last = h.count > 0 ? h.percentile(90) / 1e6 : 0;
    h.reset();
  }, SAMPLE_EVERY_MS);
  timer.unref();
  return {
    read: () => last,
    stop: () => {
      clearInterval(timer);
      h.disable();
    },
  };
}

export function overloaded(retryAfterSeconds: number, reason: AdmissionRefusal): AppError {
  const why =
    reason === 'in_flight'
      ? 'this service process already has as many RFQs in flight as it can complete within their quote window'
      : 'this service process is running behind (event-loop delay) and could not complete an RFQ within its quote window';
  return new AppError(503, 'OVERLOADED', `${why}; nothing was reserved: retry the same request after Retry-After seconds`, null, {
    'Retry-After': String(retryAfterSeconds),
  });
}

export interface AdmissionOptions {
  /** Replaces the sampler (tests); by default one runs when maxLoopDelayMs > 0. */
  loopDelay?: () => number;
  /** Where rfq_admission_in_flight, rfq_admission_loop_delay_seconds and rfq_admission_refused_total{reason} go. */
  registry?: Registry;
}

export function createRfqAdmission(settings: AdmissionSettings, opts: AdmissionOptions = {}): RfqAdmission {
  const sampler = !opts.loopDelay && settings.maxLoopDelayMs > 0 ? sampleLoopDelay() : null;
  const delay = opts.loopDelay ?? sampler?.read ?? (() => 0);
  const retryAfter = Math.max(1, Math.ceil(settings.quoteWindowMs / 1000));
  const refusals: Record<AdmissionRefusal, number> = { in_flight: 0, loop_delay: 0 };
  const counter = opts.registry
    ? registerMetrics(
        opts.registry,
        () => inFlight,
        () => (settings.maxLoopDelayMs > 0 ? delay() : 0),
      )
    : null;
  let inFlight = 0;
  const refuse = (reason: AdmissionRefusal): never => {
    refusals[reason] += 1;
    counter?.labels(reason).inc();
    throw overloaded(retryAfter, reason);
  };
  return {
    admit() {
      if (inFlight >= settings.maxInFlight) refuse('in_flight');
      if (settings.maxLoopDelayMs > 0 && delay() > settings.maxLoopDelayMs) refuse('loop_delay');
      inFlight += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
    inFlight: () => inFlight,
    loopDelayMs: () => (settings.maxLoopDelayMs > 0 ? delay() : 0),
    refused: (reason) => refusals[reason],
    stop: () => sampler?.stop(),
  };
}

function registerMetrics(registry: Registry, inFlight: () => number, delayMs: () => number): Counter<'reason'> {
  new Gauge({
    name: 'rfq_admission_in_flight',
    help: 'POST /v1/rfq requests in progress on this process (RFQ_ADMISSION_MAX_IN_FLIGHT)',
    registers: [registry],
    collect() {
      this.set(inFlight());
    },
  });
  new Gauge({
    name: 'rfq_admission_loop_delay_seconds',
    help: 'p90 event-loop delay of this process over the last second, as admission control reads it (RFQ_ADMISSION_MAX_LOOP_DELAY_MS)',
    registers: [registry],
    collect() {
      this.set(delayMs() / 1000);
    },
  });
  const refused = new Counter({
    name: 'rfq_admission_refused_total',
    help: 'POST /v1/rfq answered 503 OVERLOADED, by signal (in_flight, loop_delay)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['in_flight', 'loop_delay']) refused.labels(reason).inc(0);
  return refused;
}
