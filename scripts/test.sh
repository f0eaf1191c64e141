#!/usr/bin/env bash
# `npm test`: everything CI checks, fastest first. Needs PostgreSQL (127.0.0.1:5432, user postgres,
# trust auth) and Redis (127.0.0.1:6379); override with TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL.
set -uo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { printf '\n\033[31mFAILED: %s\033[0m\n' "$*"; exit 1; }

step "type-check"
npx tsc --noEmit -p tsconfig.json || fail "type-check"

step "lint spec/openapi.yaml (Redocly) and validate spec/asyncapi.yaml"
npx redocly lint spec/openapi.yaml --format=stylish || fail "OpenAPI lint"
npx tsx scripts/validate-asyncapi.ts || fail "AsyncAPI validation"

step "generated/ matches spec/"
npx tsx scripts/generate.ts --check || fail "generated/ is stale"

step "unit, integration and contract tests (real PostgreSQL, Redis and service processes)"
report=$(mktemp)
rm -rf contract-tests/.coverage
npx vitest run --reporter=default --reporter=json --outputFile.json="$report"
vitest_rc=$?

step "contract coverage: every documented (operation, status) exercised or pending"
npx tsx contract-tests/coverage-report.ts
coverage_rc=$?

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" || echo "0 passed, 1 failed"
rm -f "$report"
[ "$vitest_rc" -eq 0 ] || fail "tests"
[ "$coverage_rc" -eq 0 ] || fail "contract coverage"
