#!/usr/bin/env bash
# No import runs back up a floor (docs/architecture.md, "Floors"). Floors, top to bottom:
#   entry points (src/main, process, service and src/service/, runtime, migrate) > http, ws, workers > trading > jobs, bus > domain
#   > adapters (the network clients: chain, prices) > db > base (src/config/, logger, failpoints, constants, redact-url: import nothing of src/ but each other).
# Inside src/domain/, its own floors (docs/architecture.md, "Floors inside src/domain/"), read from that table.
# Prints every back-arrow and exits 1 when there is one. Tests (*.test.ts) and src/testing/ are exempt.
cd "$(dirname "$0")/.."
imports() { find "$@" -name '*.ts' ! -name '*.test.ts' -print0 | xargs -0 grep -HnE "^(import|export) .* from '\.|import\('\."; }
found=$(
  {
    grep -HnE "from '\./[a-z-]+/|from '\./(runtime|process|service|main|migrate)\.js'" src/logger.ts src/failpoints.ts src/constants.ts src/redact-url.ts |
      grep -v "from '\./config/"
    imports src/config | grep -vE "'\./[a-z-]+\.js'|'\.\./(logger|failpoints|constants|redact-url)\.js'"
    imports src/adapters | grep -E "'(\.\./)+(domain|db|jobs|bus|trading|http|ws|testing|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/db | grep -E "'\.\./(adapters|domain|jobs|bus|trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/domain | grep -E "'(\.\./)+(jobs|bus|trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/jobs src/bus | grep -E "'\.\./(trading|http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/trading | grep -E "'\.\./(http|ws|runtime|process|service|main|migrate)[/.]|workers/"
    imports src/http src/ws workers | grep -E "'(\.\./)+(src/)?(process|service|main|migrate)(\.js'|/)"
  } || true
)
# "<floor> <name>" per folder or file of the domain's table (demo/ -> demo, errors.ts -> errors).
domain_table() {
  awk -F'|' '/^### Floors inside `src\/domain\/`/ { on = 1; next } on && /^#/ { on = 0 }
    on && $2 ~ /^ *[0-9]+ *$/ { s = $3; while (match(s, /`[^`]+`/)) { n = substr(s, RSTART + 1, RLENGTH - 2); sub(/(\/|\.ts)$/, "", n); print $2 + 0, n; s = substr(s, RSTART + RLENGTH) } }' docs/architecture.md
}
# Every relative import of a domain file (multi-line imports too), resolved; an import into another folder of
# the domain must name a lower floor; a folder or file the table does not name is reported too.
domain_found=$(
  find src/domain -name '*.ts' ! -name '*.test.ts' -print0 | xargs -0 grep -HnoE "(from |import\()'\.[^']*'" |
    awk -v table="$(domain_table)" -v quote="'" '
      BEGIN { n = split(table, rows, "\n"); for (i = 1; i <= n; i++) { split(rows[i], f, " "); floor[f[2]] = f[1] } }
      function entry(path,   parts, k, out, m, i, e) {  # the folder or file of src/domain/ that path lies in, or ""
        k = split(path, parts, "/"); m = 0
        for (i = 1; i <= k; i++) if (parts[i] == "..") m--; else if (parts[i] != "." && parts[i] != "") out[++m] = parts[i]
        if (m < 3 || out[1] != "src" || out[2] != "domain") return ""
        e = out[3]; sub(/\.(js|ts)$/, "", e); return e
      }
      {
        file = $0; sub(/:.*/, "", file); line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
        split($0, quoted, quote); spec = quoted[2]
        dir = file; sub(/\/[^\/]*$/, "", dir)
        from = entry(file); to = entry(dir "/" spec)
        if (!(from in floor)) { missing[from] = 1; next }
        if (to == "" || to == from) next
        if (!(to in floor)) missing[to] = 1
        else if (floor[to] >= floor[from]) printf "%s:%s: %s (domain floor %d) imports %s (floor %d)\n", file, line, from, floor[from], to, floor[to]
      }
      END { for (e in missing) printf "src/domain/%s: not in the table of docs/architecture.md, \"Floors inside src/domain/\"\n", e }'
)
found=$(printf '%s\n%s' "$found" "$domain_found" | sed '/^$/d')
if [ -n "$found" ]; then
  printf 'imports running back up a floor:\n%s\n' "$found"
  exit 1
fi
echo "floors: no import runs back up (src/domain/: none across its own floors)"
