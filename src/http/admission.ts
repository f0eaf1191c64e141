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
// - Create latency, as an adaptive limit on RFQs in flight: once a second, the median of how long
//   the admitted RFQs took to be created (the handler's start to the reserve committed) is compared with
//   RFQ_ADMISSION_MAX_CREATE_MS. Above it (with at least MIN_CREATE_SAMPLES RFQs created in that second), the
//   limit drops to 90% of what was in flight; at or below it, while the limit was reached, it grows by a quarter
//   (at least 2). It is read once a second, so it must find its level again within seconds: growing by a tenth,
//   one early cut (a burst of closed-loop takers) held the limit near 12 for a whole 8 s run, at half of what
//   the box completes. It sees what the loop delay cannot: a backlog
//   in the database pool or in PostgreSQL, which the makers' quotes (a statement each) and the close wait in
//   too. Measured by bench:rfq at 96 takers: the loop delay stayed under its bound while RFQs waited hundreds
//   of milliseconds for the database, nothing was shed and most RFQs expired; refusing every request for a
//   second whenever the 90th percentile was over the bound (the first version) halved the fills with one
//   maker, so the signal narrows the door instead of shutting it; and it reads the median, not the 90th
//   percentile: stalls of 100+ ms a few times a second (seen even at 12 takers with the host half idle) cut a
//   p90-driven limit to half of what the box completes, while a real backlog moves the median. 0 turns it off (the limit stays RFQ_ADMISSION_MAX_IN_FLIGHT).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../domain/errors.js';

export interface AdmissionSettings {
  /** createRfq requests in progress on this process at most; 0: none admitted. */
  maxInFlight: number;
  /** p90 event-loop delay (ms) over the last second at most; 0: not watched. */
  maxLoopDelayMs: number;
  /** Median create latency (ms: the handler's start to the reserve committed) over the last second at most; 0: not watched. */
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
  /** How long an admitted RFQ took to be created (ms, the handler's start to its reserve committed). */
  created(ms: number): void;
  inFlight(): number;
  /** The last second's p90 event-loop delay in ms (0 when not watched). */
  loopDelayMs(): number;
  /** The last second's median create latency in ms (0 when not watched or none were created). */
  createMs(): number;
  /** The adaptive in-flight limit (RFQ_ADMISSION_MAX_IN_FLIGHT when the create latency is not watched). */
  limit(): number;
  /** The once-a-second step of the create-latency signal (its timer calls it; tests call it directly). */
  tick(): void;
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

/** The (upper) median of one second's create latencies (0 when there were none). */
export function createMedian(samples: readonly number[]): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The lowest the adaptive limit goes: a process always admits a few RFQs, so it keeps measuring. */
export const MIN_LIMIT = 4;

/**
 * The adaptive in-flight limit after one second (pure): cut to 90% of what was in flight when the median create
 * latency was over `maxCreateMs` (with at least MIN_CREATE_SAMPLES RFQs created); grown by a quarter (at least 2)
 * when it was within and the limit was reached; otherwise unchanged. Always within [MIN_LIMIT, max].
 */
export function nextLimit(
  limit: number,
  second: { samples: readonly number[]; peakInFlight: number },
  bounds: { maxCreateMs: number; max: number },
): number {
  const median = createMedian(second.samples);
  const floor = Math.min(MIN_LIMIT, bounds.max);
  if (second.samples.length >= MIN_CREATE_SAMPLES && median > bounds.maxCreateMs) {
    return Math.max(floor, Math.floor(0.9 * Math.min(limit, second.peakInFlight)));
  }
  if (median <= bounds.maxCreateMs && second.peakInFlight >= limit) return Math.min(bounds.max, limit + Math.max(2, Math.floor(limit / 4)));
  return limit;
}

export function overloaded(retryAfterSeconds: number, reason: AdmissionRefusal): AppError {
  const why = {
    in_flight: 'this service process already has as many RFQs in flight as it can complete within their quote window',
    loop_delay: 'this service process is running behind (event-loop delay) and could not complete an RFQ within its quote window',
    create_latency:
      'this service process has as many RFQs in flight as it currently completes in time (its RFQs took too long to be created) and could not complete another within its quote window',
  }[reason];
  return new AppError(503, 'OVERLOADED', `${why}; nothing was reserved: retry the same request after Retry-After seconds`, null, {
    'Retry-After': String(retryAfterSeconds),
  });
}

/**
 * Where admission runs: src/http/serve.ts calls this for every matched request, after the rate limit and
 * before authentication and the body are read (a refusal costs neither); it admits POST /v1/rfq (createRfq)
 * through `admission` and returns its release, to call once the answer is written. Other operations: undefined.
 */
export type AdmissionGate = (operationId: string) => (() => void) | undefined;

export const admissionGate =
  (admission: RfqAdmission): AdmissionGate =>
  (operationId) =>
    operationId === 'createRfq' ? admission.admit() : undefined;

export interface AdmissionOptions {
  /** Replaces the sampler (tests); by default one runs when maxLoopDelayMs > 0. */
  loopDelay?: () => number;
  /** false: no once-a-second timer; the caller calls tick() (tests). */
  timer?: boolean;
  /** Where rfq_admission_in_flight, rfq_admission_loop_delay_seconds and rfq_admission_refused_total{reason} go. */
  registry?: Registry;
}

export function createRfqAdmission(settings: AdmissionSettings, opts: AdmissionOptions = {}): RfqAdmission {
  const sampler = !opts.loopDelay && settings.maxLoopDelayMs > 0 ? sampleLoopDelay() : null;
  const delay = opts.loopDelay ?? sampler?.read ?? (() => 0);
  const watchCreates = settings.maxCreateMs > 0;
  const retryAfter = Math.max(1, Math.ceil(settings.quoteWindowMs / 1000));
  const refusals: Record<AdmissionRefusal, number> = { in_flight: 0, loop_delay: 0, create_latency: 0 };
  const loopDelayMs = () => (settings.maxLoopDelayMs > 0 ? delay() : 0);
  let inFlight = 0;
  let limit = settings.maxInFlight;
  let second = { samples: [] as number[], peakInFlight: 0 };
  let lastMedian = 0;
  const tick = () => {
    lastMedian = createMedian(second.samples);
    if (watchCreates) limit = nextLimit(limit, second, { maxCreateMs: settings.maxCreateMs, max: settings.maxInFlight });
    second = { samples: [], peakInFlight: inFlight };
  };
  const timer = watchCreates && opts.timer !== false ? setInterval(tick, SAMPLE_EVERY_MS) : null;
  timer?.unref();
  const readings = { inFlight: () => inFlight, loopDelayMs, createMs: () => (watchCreates ? lastMedian : 0), limit: () => limit };
  const counter = opts.registry ? registerMetrics(opts.registry, readings) : null;
  const refuse = (reason: AdmissionRefusal): never => {
    refusals[reason] += 1;
    counter?.labels(reason).inc();
    throw overloaded(retryAfter, reason);
  };
  return {
    admit() {
      if (inFlight >= settings.maxInFlight) refuse('in_flight');
      if (inFlight >= limit) refuse('create_latency');
      if (settings.maxLoopDelayMs > 0 && delay() > settings.maxLoopDelayMs) refuse('loop_delay');
      inFlight += 1;
      second.peakInFlight = Math.max(second.peakInFlight, inFlight);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
    created: (ms) => void (watchCreates && second.samples.push(ms)),
    ...readings,
    tick,
    refused: (reason) => refusals[reason],
    stop: () => {
      sampler?.stop();
      if (timer) clearInterval(timer);
    },
  };
}

interface Readings {
  inFlight: () => number;
  loopDelayMs: () => number;
  createMs: () => number;
  limit: () => number;
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
    'median time from the start of the handler to the reserve committed of the RFQs this process created over the last second, as admission control reads it (RFQ_ADMISSION_MAX_CREATE_MS)',
    () => r.createMs() / 1000,
  );
  gauge(
    'rfq_admission_limit',
    'RFQs in flight this process admits now: RFQ_ADMISSION_MAX_IN_FLIGHT, or lower while its RFQs take longer than RFQ_ADMISSION_MAX_CREATE_MS to be created',
    r.limit,
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
