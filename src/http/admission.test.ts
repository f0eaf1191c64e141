// The admission decision of POST /v1/rfq (src/http/admission.ts), with the event-loop delay given rather
// than produced: no timing. The refusal against a real process is contract-tests/rfq-overloaded.test.ts.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { createMedian, createRfqAdmission, MIN_CREATE_SAMPLES, MIN_LIMIT, nextLimit } from './admission.js';

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
    const a = createRfqAdmission(
      { maxInFlight: 100, maxLoopDelayMs: 100, maxCreateMs: 0, quoteWindowMs: 500 },
      { loopDelay: () => delay, registry },
    );
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

  it('the create latency narrows the door: over RFQ_ADMISSION_MAX_CREATE_MS the in-flight limit drops to 90% of what was in flight, within it grows back by a quarter while reached', async () => {
    const registry = new Registry();
    const a = createRfqAdmission({ maxInFlight: 100, maxLoopDelayMs: 0, maxCreateMs: 50, quoteWindowMs: 250 }, { timer: false, registry });
    expect(a.limit()).toBe(100);
    // A second of 20 RFQs in flight whose creates took 80 ms (median): the limit becomes 18.
    const releases = Array.from({ length: 20 }, () => a.admit());
    for (let i = 0; i < 20; i++) a.created(i < 2 ? 10 : 80);
    a.tick();
    expect(a.createMs()).toBe(80);
    expect(a.limit()).toBe(18);
    // 20 are still in flight: the next is refused, nothing taken, until enough have answered.
    expect(refusal(() => a.admit())).toEqual({ status: 503, code: 'OVERLOADED', headers: { 'Retry-After': '1' } });
    expect(a.inFlight()).toBe(20);
    for (const r of releases.slice(0, 3)) r();
    const r16 = a.admit(); // 17 in flight: admitted as the 18th
    expect(refusal(() => a.admit())).toMatchObject({ code: 'OVERLOADED' });
    // A second within the bound while the limit was reached: it grows by a quarter (at least 2).
    for (let i = 0; i < 6; i++) a.created(20);
    a.tick();
    expect(a.limit()).toBe(22);
    r16();
    for (const r of releases.slice(3)) r();
    const text = await registry.metrics();
    expect(text).toContain('rfq_admission_refused_total{reason="create_latency"} 2');
    expect(text).toContain('rfq_admission_limit 22');
    expect(text).toContain('rfq_admission_create_seconds 0.02');
  });

  it('nextLimit: too few creates say nothing about a backlog; the limit stays within [MIN_LIMIT, RFQ_ADMISSION_MAX_IN_FLIGHT]; idle keeps it', () => {
    const bounds = { maxCreateMs: 50, max: 256 };
    expect(nextLimit(40, { samples: [900, 900, 900, 900], peakInFlight: 40 }, bounds)).toBe(40); // 4 < MIN_CREATE_SAMPLES
    expect(MIN_CREATE_SAMPLES).toBe(5);
    expect(nextLimit(5, { samples: [900, 900, 900, 900, 900], peakInFlight: 5 }, bounds)).toBe(MIN_LIMIT);
    expect(nextLimit(256, { samples: [10], peakInFlight: 256 }, bounds)).toBe(256);
    expect(nextLimit(4, { samples: [10], peakInFlight: 4 }, bounds)).toBe(6);
    expect(nextLimit(30, { samples: [], peakInFlight: 3 }, bounds)).toBe(30); // not reached: unchanged
    expect(nextLimit(30, { samples: [], peakInFlight: 30 }, bounds)).toBe(37);
    expect(createMedian([1, 2, 3, 4, 5, 6, 7, 8, 9, 100])).toBe(6);
    expect(createMedian([5, 5, 5, 5, 300])).toBe(5); // a stall is not a backlog
    expect(createMedian([5, 5, 300, 300, 300])).toBe(300);
  });

  it('0 does not watch the create latency: the limit stays RFQ_ADMISSION_MAX_IN_FLIGHT', () => {
    const a = createRfqAdmission({ maxInFlight: 3, maxLoopDelayMs: 0, maxCreateMs: 0, quoteWindowMs: 250 }, { timer: false });
    const rs = [a.admit(), a.admit()];
    for (let i = 0; i < 10; i++) a.created(1e6);
    a.tick();
    expect(a.limit()).toBe(3);
    expect(a.createMs()).toBe(0);
    expect(refusal(() => a.admit())).toBeNull();
    for (const r of rs) r();
  });
});
