// Runs after the contract tests (npm run test:contract): every (operationId, documented status) pair of
// spec/openapi.yaml must have been exercised by a test, or be listed in pending.json (behaviour not built
// yet). A pending pair that was exercised fails too, so the pending list only shrinks.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listOperations, loadSpec } from './spec.ts';
import { readRunCoverage } from './coverage-files.ts';

const PENDING_PATH = fileURLToPath(new URL('./pending.json', import.meta.url));

function readPending(): Map<string, Set<string>> {
  const raw = existsSync(PENDING_PATH) ? (JSON.parse(readFileSync(PENDING_PATH, 'utf8')) as Record<string, unknown>) : {};
  const pending = new Map<string, Set<string>>();
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('_')) continue; // comments
    if (!Array.isArray(value)) throw new Error(`pending.json: ${key} must list statuses`);
    pending.set(key, new Set(value.map(String)));
  }
  return pending;
}

const run = readRunCoverage();

function main(): number {
  const operations = listOperations(loadSpec());
  const pending = readPending();
  const { files } = run;
  const exercised = new Map<string, Set<string>>();
  for (const file of files) {
    for (const [op, statuses] of Object.entries(file.exercised)) {
      const set = exercised.get(op) ?? new Set<string>();
      for (const s of statuses) set.add(s);
      exercised.set(op, set);
    }
  }

  const problems: string[] = [];
  const rows: string[][] = [];
  const counts = { exercised: 0, pending: 0, missing: 0, total: 0 };
  for (const op of operations) {
    for (const status of Object.keys(op.responses)) {
      const isExercised = exercised.get(op.operationId)?.has(status) ?? false;
      const isPending = pending.get(op.operationId)?.has(status) ?? false;
      counts.total++;
      if (isExercised) counts.exercised++;
      if (isPending) counts.pending++;
      let verdict = '';
      if (!isExercised && !isPending) {
        counts.missing++;
        verdict = 'MISSING';
        problems.push(`${op.operationId} ${status}: never exercised and not pending`);
      } else if (isExercised && isPending) {
        verdict = 'DONE: remove from pending.json';
        problems.push(`${op.operationId} ${status}: exercised but still listed in pending.json`);
      }
      rows.push([op.operationId, status, isExercised ? 'yes' : 'no', isPending ? 'yes' : 'no', verdict]);
    }
  }
  for (const [op, statuses] of pending) {
    const spec = operations.find((o) => o.operationId === op);
    for (const status of statuses) {
      if (!spec?.responses[status]) problems.push(`pending.json lists ${op} ${status}, which the spec does not document`);
    }
  }

  const header = ['operationId', 'status', 'exercised', 'pending', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
  console.log(
    `\n${counts.total} documented (operationId, status) pairs: ${counts.exercised} exercised, ${counts.pending} pending, ${counts.missing} missing` +
      ` (${files.length} coverage files${run.matchedBy === 'latest' ? ' of the latest vitest run: not started by npm run test:contract' : ''})`,
  );
  if (!files.length) problems.unshift('no coverage files: run the contract tests first (npm run test:contract)');
  if (problems.length) {
    console.error(`\ncontract coverage FAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  console.log('contract coverage OK');
  return 0;
}

let code = 1;
try {
  code = main();
} finally {
  run.consume();
}
process.exit(code);
