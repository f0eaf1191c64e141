#!/usr/bin/env bash
# No import runs back up a floor (docs/architecture.md, "Floors"). Floors, top to bottom:
#   entry points (src/main, process, service and src/service/, runtime, migrate) > http, ws, workers > trading > jobs, bus > domain
#   > adapters (the network clients: chain, prices) > db > base (src/config and its config-* parts, logger, failpoints, constants, redact-url: import nothing of src/).
# Prints every back-arrow and exits 1 when there is one. Tests (*.test.ts) and src/testing/ are exempt.
cd "$(dirname "$0")/.."
imports() { find "$@" -name '*.ts' ! -name '*.test.ts' -print0 | xargs -0 grep -HnE "^(import|export) .* from '\.|import\('\."; }
found=$(
  {
    grep -HnE "from '\./[a-z-]+/|from '\./(runtime|process|service|main|migrate)\.js'" src/config.ts src/config-*.ts src/logger.ts src/failpoints.ts src/constants.ts src/redact-url.ts
    imports src/adapters | grep -E "'(\.\./)+(domain|db|jobs|bus|trading|http|ws|testing|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/db | grep -E "'\.\./(adapters|domain|jobs|bus|trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/domain | grep -E "'(\.\./)+(jobs|bus|trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/jobs src/bus | grep -E "'\.\./(trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/trading | grep -E "'\.\./(http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/http src/ws workers | grep -E "'(\.\./)+(src/)?(process|service|main|migrate)(\.js'|/)"
  } || true
)
if [ -n "$found" ]; then
  printf 'imports running back up a floor:\n%s\n' "$found"
  exit 1
fi
echo "floors: no import runs back up"
