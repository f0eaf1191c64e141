// docs/alerts.yml is Prometheus rule YAML whose every metric exists: the gauges and HTTP metrics this
// service registers (src/http/metrics.ts, src/http/admission.ts, src/http/system-status.ts, src/http/resolution-metrics.ts, src/http/settlement-gauges.ts),
// prom-client's process metrics, or
// Prometheus's own `up`. A renamed metric fails here instead of silencing an alert.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createRfqAdmission } from './admission.js';
import { createMetrics } from './metrics.js';
import { registerResolutionGauges } from './resolution-metrics.js';
import { startSettlementGauges } from './settlement-gauges.js';
import { registerStatusGauges } from './system-status.js';

const RULES = fileURLToPath(new URL('../../docs/alerts.yml', import.meta.url));
const PROMETHEUS_OWN = new Set(['up']);
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** The metric names of a PromQL expression: identifiers that are neither functions, keywords nor label names. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // string literals
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // grouping labels
    .replace(/\[[^\]]*\]/g, ''); // range selectors
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (m[2] || KEYWORDS.has(m[1]!.toLowerCase())) continue; // a function call or a keyword
    names.add(m[1]!);
  }
  return [...names];
}

async function registeredNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  const source = { report: () => Promise.reject(new Error('not scraped in this test')) };
  registerStatusGauges(metrics.registry, source);
  registerResolutionGauges(metrics.registry, source);
  createRfqAdmission({ maxInFlight: 1, maxLoopDelayMs: 0, maxCreateMs: 0, quoteWindowMs: 500 }, { registry: metrics.registry }); // rfq_admission_*
  // The onchain settlement gauges (src/http/settlement-gauges.ts), registered by an adapter that reconciles.
  const silent = { warn: () => undefined, error: () => undefined } as unknown as Parameters<typeof startSettlementGauges>[0]['log'];
  const settlement = { reconcile: () => Promise.reject(new Error('not read in this test')) } as unknown as Parameters<
    typeof startSettlementGauges
  >[0]['settlement'];
  startSettlementGauges({
    registry: metrics.registry,
    settlement,
    forkDb: () => undefined as never,
    log: silent,
    everyMs: 3_600_000,
  }).stop();
  const names = new Set<string>(PROMETHEUS_OWN);
  for (const m of metrics.registry.getMetricsAsArray()) {
    const { name, type } = m as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

describe('docs/alerts.yml', () => {
  const doc = parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> };
  const rules = doc.groups.flatMap((g) => g.rules);

  it('finds metric names in PromQL and nothing else', () => {
    expect(metricNames('min by (scheduler) (crfq_scheduler_present{queue="a b"}) == 0')).toEqual(['crfq_scheduler_present']);
    expect(metricNames('sum(rate(http_requests_total{status=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.02')).toEqual([
      'http_requests_total',
    ]);
    expect(metricNames('histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m]))) > 1 and on(job) up == 0')).toEqual(['x_bucket', 'up']);
  });

  it('is Prometheus rule YAML: every rule has a name, an expression, a severity and a summary', () => {
    expect(doc.groups.length).toBeGreaterThan(0);
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(typeof r.expr, r.alert).toBe('string');
      expect(['page', 'warn'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      if (r.for !== undefined) expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('names only metrics the service exports (and Prometheus’s own up)', async () => {
    const known = await registeredNames();
    expect(known.has('no_such_metric_total')).toBe(false);
    const unknown = rules.flatMap((r) =>
      metricNames(r.expr!)
        .filter((n) => !known.has(n))
        .map((n) => `${r.alert}: ${n}`),
    );
    expect(unknown).toEqual([]);
    // Every crfq_* gauge has an alert that watches it.
    const watched = new Set(rules.flatMap((r) => metricNames(r.expr!)));
    for (const name of known) if (name.startsWith('crfq_')) expect(watched.has(name), name).toBe(true);
  });
});
