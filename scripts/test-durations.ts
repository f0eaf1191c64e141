// `npm run test:durations -- <vitest JSON report>`: rewrites src/testing/test-durations.json (the order the test
// files start in: src/testing/vitest-sequencer.ts) from a run's report, e.g. the one `npm test` keeps in
// .test-results/vitest.json. Durations are rounded to seconds so a rerun changes few lines.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DURATIONS_FILE } from '../src/testing/vitest-sequencer.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const reportPath = process.argv[2] ?? '.test-results/vitest.json';
const report = JSON.parse(readFileSync(reportPath, 'utf8')) as { testResults: Array<{ name: string; startTime: number; endTime: number }> };
// The report names files by absolute path, in the checkout that ran them (CI's clone, say): paths are taken
// relative to the folder all of them share (the checkout: its tests sit in several top-level folders).
const names = report.testResults.map((r) => r.name);
const shared = names.reduce((prefix, n) => {
  let i = 0;
  while (i < prefix.length && prefix[i] === n[i]) i++;
  return prefix.slice(0, i);
}, names[0] ?? ROOT);
const base = shared.slice(0, shared.lastIndexOf('/') + 1) || ROOT;
const out: Record<string, number> = {};
for (const r of [...report.testResults].sort((a, b) => (a.name < b.name ? -1 : 1))) {
  out[relative(base, r.name)] = Math.max(1, Math.round((r.endTime - r.startTime) / 1000)) * 1000;
}
writeFileSync(DURATIONS_FILE, `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`test durations: ${Object.keys(out).length} files from ${reportPath} written to ${fileURLToPath(DURATIONS_FILE)}\n`);
