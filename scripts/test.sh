#!/usr/bin/env bash
# `npm test`: everything CI checks, fastest first. Needs PostgreSQL (127.0.0.1:5432, user postgres,
# trust auth) and Redis (127.0.0.1:6379); override with TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL.
set -uo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { printf '\n\033[31mFAILED: %s\033[0m\n' "$*"; exit 1; }

step "type-check"
npx tsc --noEmit -p tsconfig.json || fail "type-check"

step "lint (ESLint 10, typescript-eslint recommended: eslint.config.js)"
npx eslint . || fail "lint"

step "format (Prettier 3: .prettierrc.json; npm run format rewrites)"
npx prettier --check --log-level=warn . || fail "format: run npm run format"

step "floors: no import runs back up (scripts/check-floors.sh)"
bash scripts/check-floors.sh || fail "floors"

step "lint spec/openapi.yaml (Redocly) and validate spec/asyncapi.yaml"
npx redocly lint spec/openapi.yaml --format=stylish || fail "OpenAPI lint"
npx tsx scripts/asyncapi/validate.ts || fail "AsyncAPI validation"

step "generated/ matches spec/"
npx tsx scripts/generate.ts --check || fail "generated/ is stale"

step "drift probe: a field, parameter, status or client message renamed in spec/ fails tsc (about 16 s of CPU)"
npx tsx scripts/drift-probe.ts || fail "drift probe"

step "contracts/build/ matches contracts/*.sol (solc-js)"
npx tsx scripts/contracts.ts --check || fail "contracts/build/ is stale (npm run contracts)"

step "src/queries/ matches the repositories' SQL"
npx tsx scripts/sql-snapshot.ts --check || fail "SQL snapshots are stale (npm run sql:snapshot)"

step "unit, integration and contract tests (real PostgreSQL, Redis and service processes)"
report=$(mktemp)
rm -rf contract-tests/.coverage
npx vitest run --reporter=default --reporter=json --outputFile.json="$report"
vitest_rc=$?

step "contract coverage: every documented (operation, status) exercised or pending"
npx tsx contract-tests/coverage-report.ts
coverage_rc=$?

step "browser tests (Playwright on Debian's Chromium, real service and PostgreSQL)"
e2e_report=$(mktemp)
PLAYWRIGHT_JSON_OUTPUT_NAME="$e2e_report" npm run -s test:e2e -- --reporter=list,json
e2e_rc=$?

node -e '
  const fs = require("fs");
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  let [passed, failed, skipped] = [r.numPassedTests, r.numFailedTests, r.numPendingTests];
  // Playwright stats: expected = passed, unexpected = failed; no report at all counts as one failure.
  let e2e;
  try { e2e = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).stats; } catch {}
  if (e2e) { passed += e2e.expected + e2e.flaky; failed += e2e.unexpected; skipped += e2e.skipped; } else failed += 1;
  console.log(`\n${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$report" "$e2e_report" || echo "0 passed, 1 failed"
rm -f "$report" "$e2e_report"
[ "$vitest_rc" -eq 0 ] || fail "tests"
[ "$coverage_rc" -eq 0 ] || fail "contract coverage"
[ "$e2e_rc" -eq 0 ] || fail "browser tests"
