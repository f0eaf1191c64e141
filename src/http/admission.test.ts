// The admission decision of POST /v1/rfq (src/http/admission.ts), with the event-loop delay given rather
// than produced: no timing. The refusal against a real process is contract-tests/rfq-overloaded.test.ts.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { createP90, createRfqAdmission, MIN_CREATE_SAMPLES } from './admission.js';

const refusal = (admit: () => unknown) => {
  try {
    admit();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.code, headers: err.headers };
    throw err;
  }
  return null;
};

describe('RFQ admission control', () => {
  it('admits up to RFQ_ADMISSION_MAX_IN_FLIGHT at once; the next is 503 OVERLOADED with Retry-After; a release frees a slot', () => {
    const a = createRfqAdmission({ maxInFlight: 2, maxLoopDelayMs: 0, maxCreateMs: 0, quoteWindowMs: 2500 }, { loopDelay: () => 1e9 });
    const r1 = a.admit();
    const r2 = a.admit();
    expect(a.inFlight()).toBe(2);
    expect(refusal(() => a.admit())).toEqual({ status: 503, code: 'OVERLOADED', headers: { 'Retry-After': '3' } });
    r1();
    r1(); // a second release of the same slot changes nothing
    expect(a.inFlight()).toBe(1);
    expect(refusal(() => a.admit())).toBeNull();
    r2();
    expect(a.refused('in_flight')).toBe(1);
    expect(a.refused('loop_delay')).toBe(0); // 0: the delay is not watched, whatever it is
  });

  it('0 admits none (a draining process)', () => {
    const a = createRfqAdmission({ maxInFlight: 0, maxLoopDelayMs: 0, maxCreateMs: 0, quoteWindowMs: 500 });
    expect(refusal(() => a.admit())).toEqual({ status: 503, code: 'OVERLOADED', headers: { 'Retry-After': '1' } });
    expect(a.inFlight()).toBe(0);
  });

  it('refuses while the event-loop delay is above RFQ_ADMISSION_MAX_LOOP_DELAY_MS, admits again once it is back', async () => {
    let delay = 250;
    const registry = new Registry();
    const a = createRfqAdmission({ maxInFlight: 100, maxLoopDelayMs: 100, maxCreateMs: 0, quoteWindowMs: 500 }, { loopDelay: () => delay, registry });
    expect(refusal(() => a.admit())).toMatchObject({ status: 503, code: 'OVERLOADED' });
    expect(a.inFlight()).toBe(0);
    delay = 100;
    expect(refusal(() => a.admit())).toBeNull();
    const text = await registry.metrics();
    expect(text).toContain('rfq_admission_refused_total{reason="loop_delay"} 1');
    expect(text).toContain('rfq_admission_refused_total{reason="in_flight"} 0');
    expect(text).toContain('rfq_admission_in_flight 1');
    expect(text).toContain('rfq_admission_loop_delay_seconds 0.1');
  });

  it('refuses while the p90 over the last second of the create latency is above RFQ_ADMISSION_MAX_CREATE_MS; a second with too few creates says nothing', async () => {
    expect(createP90([900, 900, 900, 900])).toBe(0); // below MIN_CREATE_SAMPLES
    expect(createP90([1, 2, 3, 4, 5, 6, 7, 8, 9, 100])).toBe(9);
    expect(createP90([5, 5, 5, 5, 300])).toBe(300);
    let p90 = 0;
    const seen: number[] = [];
    const registry = new Registry();
    const a = createRfqAdmission(
      { maxInFlight: 100, maxLoopDelayMs: 0, maxCreateMs: 50, quoteWindowMs: 250 },
      { createLatency: { add: (ms) => void seen.push(ms), read: () => p90 }, registry },
    );
    const release = a.admit();
    a.created(12.5);
    release();
    expect(seen).toEqual([12.5]);
    p90 = 80;
    expect(refusal(() => a.admit())).toEqual({ status: 503, code: 'OVERLOADED', headers: { 'Retry-After': '1' } });
    expect(a.inFlight()).toBe(0); // nothing taken
    p90 = 50;
    expect(refusal(() => a.admit())).toBeNull();
    const text = await registry.metrics();
    expect(text).toContain('rfq_admission_refused_total{reason="create_latency"} 1');
    expect(text).toContain('rfq_admission_create_seconds 0.05');
    expect(MIN_CREATE_SAMPLES).toBeGreaterThan(1);
  });

  it('0 does not watch the create latency, whatever it is', () => {
    const a = createRfqAdmission(
      { maxInFlight: 100, maxLoopDelayMs: 0, maxCreateMs: 0, quoteWindowMs: 250 },
      { createLatency: { add: () => undefined, read: () => 1e9 } },
    );
    expect(refusal(() => a.admit())).toBeNull();
    expect(a.createMs()).toBe(0);
  });
});
