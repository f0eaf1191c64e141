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
// - Create latency: the 90th percentile, over the last second (at least MIN_CREATE_SAMPLES RFQs), of how
//   long an admitted RFQ took to be created (admission to its reserve committed), against
//   RFQ_ADMISSION_MAX_CREATE_MS. It sees what the loop delay cannot: a backlog outside this process's event
//   loop, in its database pool or in PostgreSQL itself, which the makers' quotes (a statement each) and the
//   close wait in too. Measured by bench:rfq: with 96 takers the loop delay stayed under its bound while
//   RFQs waited hundreds of milliseconds for a pooled connection and most of them expired. 0 turns it off.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../domain/errors.js';

export interface AdmissionSettings {
  /** createRfq requests in progress on this process at most; 0: none admitted. */
  maxInFlight: number;
  /** p90 event-loop delay (ms) over the last second at most; 0: not watched. */
  maxLoopDelayMs: number;
  /** p90 create latency (ms: admission to the reserve committed) over the last second at most; 0: not watched. */
  maxCreateMs: number;
  /** RFQ_QUOTE_WINDOW_MS: Retry-After covers one window (RFQs in flight have answered by then). */
  quoteWindowMs: number;
}

export type AdmissionRefusal = 'in_flight' | 'loop_delay' | 'create_latency';
const REASONS: readonly AdmissionRefusal[] = ['in_flight', 'loop_delay', 'create_latency'];

/** A second with fewer created RFQs says nothing about a backlog (one slow create is not one). */
export const MIN_CREATE_SAMPLES = 5;

export interface RfqAdmission {
  /** Takes a slot for one createRfq, or throws 503 OVERLOADED; call the returned release once it has answered. */
  admit(): () => void;
  /** How long an admitted RFQ took to be created (ms, admission to its reserve committed). */
  created(ms: number): void;
  inFlight(): number;
  /** The last second's p90 event-loop delay in ms (0 when not watched). */
  loopDelayMs(): number;
  /** The last second's p90 create latency in ms (0 when not watched or too few RFQs were created). */
  createMs(): number;
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

/** p90 of the create latencies observed over the last completed second (0 below MIN_CREATE_SAMPLES). */
export function sampleCreateLatency(): { add: (ms: number) => void; read: () => number; stop: () => void } {
  let current: number[] = [];
  let last = 0;
  const timer = setInterval(() => {
    last = createP90(current);
    current = [];
  }, SAMPLE_EVERY_MS);
  timer.unref();
  return { add: (ms) => void current.push(ms), read: () => last, stop: () => clearInterval(timer) };
}

/** The 90th percentile of one second's create latencies, or 0 when fewer than MIN_CREATE_SAMPLES. */
export function createP90(samples: readonly number[]): number {
  if (samples.length < MIN_CREATE_SAMPLES) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(0.9 * sorted.length) - 1]!;
}

export function overloaded(retryAfterSeconds: number, reason: AdmissionRefusal): AppError {
  const why = {
    in_flight: 'this service process already has as many RFQs in flight as it can complete within their quote window',
    loop_delay: 'this service process is running behind (event-loop delay) and could not complete an RFQ within its quote window',
    create_latency: 'this service is running behind (its RFQs take too long to be created) and could not complete an RFQ within its quote window',
  }[reason];
  return new AppError(503, 'OVERLOADED', `${why}; nothing was reserved: retry the same request after Retry-After seconds`, null, {
    'Retry-After': String(retryAfterSeconds),
  });
}

export interface AdmissionOptions {
  /** Replaces the sampler (tests); by default one runs when maxLoopDelayMs > 0. */
  loopDelay?: () => number;
  /** Replaces the create-latency sampler (tests); by default one runs when maxCreateMs > 0. */
  createLatency?: { add: (ms: number) => void; read: () => number };
  /** Where rfq_admission_in_flight, rfq_admission_loop_delay_seconds and rfq_admission_refused_total{reason} go. */
  registry?: Registry;
}

export function createRfqAdmission(settings: AdmissionSettings, opts: AdmissionOptions = {}): RfqAdmission {
  const sampler = !opts.loopDelay && settings.maxLoopDelayMs > 0 ? sampleLoopDelay() : null;
  const delay = opts.loopDelay ?? sampler?.read ?? (() => 0);
  const creates = opts.createLatency ?? (settings.maxCreateMs > 0 ? sampleCreateLatency() : null);
  const createMs = () => (settings.maxCreateMs > 0 && creates ? creates.read() : 0);
  const retryAfter = Math.max(1, Math.ceil(settings.quoteWindowMs / 1000));
  const refusals: Record<AdmissionRefusal, number> = { in_flight: 0, loop_delay: 0, create_latency: 0 };
  const loopDelayMs = () => (settings.maxLoopDelayMs > 0 ? delay() : 0);
  const counter = opts.registry ? registerMetrics(opts.registry, { inFlight: () => inFlight, loopDelayMs, createMs }) : null;
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
      if (settings.maxCreateMs > 0 && createMs() > settings.maxCreateMs) refuse('create_latency');
      inFlight += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
    created: (ms) => void (settings.maxCreateMs > 0 && creates?.add(ms)),
    inFlight: () => inFlight,
    loopDelayMs,
    createMs,
    refused: (reason) => refusals[reason],
    stop: () => {
      sampler?.stop();
      if (creates && 'stop' in creates && typeof creates.stop === 'function') creates.stop();
    },
  };
}

interface Readings {
  inFlight: () => number;
  loopDelayMs: () => number;
  createMs: () => number;
}

function registerMetrics(registry: Registry, r: Readings): Counter<'reason'> {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('rfq_admission_in_flight', 'POST /v1/rfq requests in progress on this process (RFQ_ADMISSION_MAX_IN_FLIGHT)', r.inFlight);
  gauge(
    'rfq_admission_loop_delay_seconds',
    'p90 event-loop delay of this process over the last second, as admission control reads it (RFQ_ADMISSION_MAX_LOOP_DELAY_MS)',
    () => r.loopDelayMs() / 1000,
  );
  gauge(
    'rfq_admission_create_seconds',
    'p90 time from admission to the reserve committed of the RFQs this process created over the last second, as admission control reads it (RFQ_ADMISSION_MAX_CREATE_MS)',
    () => r.createMs() / 1000,
  );
  const refused = new Counter({
    name: 'rfq_admission_refused_total',
    help: 'POST /v1/rfq answered 503 OVERLOADED, by signal (in_flight, loop_delay, create_latency)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of REASONS) refused.labels(reason).inc(0);
  return refused;
}
