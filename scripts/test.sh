#!/usr/bin/env bash
# `npm test`: everything CI checks, fastest first. Needs PostgreSQL (127.0.0.1:5432, user postgres,
# trust auth) and Redis (127.0.0.1:6379); override with TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL.
set -uo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s\033[0m (at %d s)\n' "$*" "$SECONDS"; }
fail() { printf '\n\033[31mFAILED: %s\033[0m\n' "$*"; exit 1; }

# The static checks in two lanes at once (the CI machine has 2 cores): the type-checks (tsc, then tsc again in
# the drift probe: about 50 and 40 s of CPU) in one, every other check in the other, about as long. Each check
# writes a log of its own; the logs are printed in this file's order once both lanes are done, and the first
# check that failed, in that order, fails the run with its message.
# Node's on-disk cache of compiled modules for every node process below (tsc, ESLint, vitest's workers and the
# service processes they start): each loads the same files again, and a cached module skips V8's compile step.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/node-compile}"

checks=$(mktemp -d)
declare -A title message
check() { # name, title, failure message, command...
  title[$1]=$2
  message[$1]=$3
  order+=("$1")
}
run_lane() { # names...: one after the other, each into $checks/<name>.log and .rc
  local name
  for name in "$@"; do
    "check_$name" >"$checks/$name.log" 2>&1
    echo $? >"$checks/$name.rc"
  done
}
order=()
check_types() { npx tsc --noEmit -p tsconfig.json; }
check types "type-check" "type-check"
check_lint() { npx eslint .; }
check lint "lint (ESLint 10, typescript-eslint recommended: eslint.config.js)" "lint"
check_format() { npx prettier --check --log-level=warn .; }
check format "format (Prettier 3: .prettierrc.json; npm run format rewrites)" "format: run npm run format"
check_floors() { bash scripts/check-floors.sh; }
check floors "floors: no import runs back up (scripts/check-floors.sh)" "floors"
check_spec() { npx redocly lint spec/openapi.yaml --format=stylish && npx tsx scripts/asyncapi/validate.ts; }
check spec "lint spec/openapi.yaml (Redocly) and validate spec/asyncapi.yaml" "OpenAPI lint or AsyncAPI validation"
check_generated() { npx tsx scripts/generate.ts --check; }
check generated "generated/ matches spec/" "generated/ is stale"
check_drift() { npx tsx scripts/drift-probe.ts; }
check drift "drift probe: a field, parameter, status or client message renamed in spec/ fails tsc (about 40 s of CPU)" "drift probe"
check_contracts() { npx tsx scripts/contracts.ts --check; }
check contracts "contracts/build/ matches contracts/*.sol (solc-js)" "contracts/build/ is stale (npm run contracts)"
check_sql() { npx tsx scripts/sql-snapshot.ts --check; }
check sql "src/queries/ matches the repositories' SQL" "SQL snapshots are stale (npm run sql:snapshot)"

step "static checks, two lanes at once: tsc and the drift probe | lint, format, floors, spec, generated/, contracts, SQL"
run_lane types drift &
lane_types=$!
run_lane lint format floors spec generated contracts sql
wait "$lane_types"
failed=""
for name in "${order[@]}"; do
  step "${title[$name]}"
  cat "$checks/$name.log"
  [ "$(cat "$checks/$name.rc" 2>/dev/null)" = 0 ] || failed=${failed:-${message[$name]}}
done
rm -rf "$checks"
[ -z "$failed" ] || fail "$failed"

step "unit, integration and contract tests (real PostgreSQL, Redis and service processes)"
# The run's JSON report stays in .test-results/vitest.json (not Playwright's test-results/, which it empties at its
# start): `npm run test:durations` turns it into the order the next runs start their files in
# (src/testing/vitest-sequencer.ts).
mkdir -p .test-results
report=.test-results/vitest.json
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
rm -f "$e2e_report"
printf 'npm test: %d s in all\n' "$SECONDS"
[ "$vitest_rc" -eq 0 ] || fail "tests"
[ "$coverage_rc" -eq 0 ] || fail "contract coverage"
[ "$e2e_rc" -eq 0 ] || fail "browser tests"
