#!/usr/bin/env bash
# Restore drill (docs/operations.md, "Backups and point-in-time recovery"): on a private PostgreSQL cluster
# with WAL archiving, take a base backup, keep writing, pick a point in time, write past it, lose the
# cluster, restore the base backup into a new cluster, replay the archived WAL up to that point, and check
# the restored database: the writes before the point are there, the one after it is not, and
# `npm run ledger:check` finds the books right.
#
#   npm run drill:restore            (or: bash scripts/drills/restore.sh)
#   KEEP=1 npm run drill:restore     keeps the drill's directory (clusters, WAL archive, logs) for inspection
#
# Needs the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup, psql; PG_BIN or `pg_config --bindir`)
# and Node 24 (npm run puts it first). PostgreSQL refuses to run as root: as root the clusters run as the
# `postgres` user (runuser). Touches nothing but its own temporary directory and two free local ports.
set -euo pipefail
cd "$(dirname "$0")/../.."

PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null || true)}
[ -x "$PG_BIN/initdb" ] || PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || { echo "restore drill: no PostgreSQL server binaries (set PG_BIN)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/crfq-restore-drill.XXXXXX")
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
PRIMARY_PORT=$(free_port)
RESTORED_PORT=$(free_port)
step() { printf '\n== %s\n' "$*"; }

cleanup() {
  for d in primary restored; do [ -f "$WORK/$d/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$WORK/$d" -m immediate stop >/dev/null 2>&1 || true; done
  if [ "${KEEP:-}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

psql_at() { psql -h 127.0.0.1 -p "$1" -U postgres -d "${2:-postgres}" -tAXq -v ON_ERROR_STOP=1 -c "$3"; }
url_at() { echo "postgres://postgres@127.0.0.1:$1/crfq"; }

step "a private cluster with WAL archiving ($("$PG_BIN/postgres" --version), port $PRIMARY_PORT)"
as_pg mkdir -p "$WORK/wal"
as_pg "$PG_BIN/initdb" -D "$WORK/primary" -U postgres --auth=trust >/dev/null
as_pg tee -a "$WORK/primary/postgresql.conf" >/dev/null <<CONF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK'
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $WORK/wal/%f && cp %p $WORK/wal/%f'
archive_timeout = 60
CONF
as_pg "$PG_BIN/pg_ctl" -D "$WORK/primary" -l "$WORK/primary.log" -w start >/dev/null
psql_at "$PRIMARY_PORT" postgres 'create database crfq'

step "the service's schema and data (migrations, demo users, deposits, contests), then a deposit before the backup"
DATABASE_URL=$(url_at "$PRIMARY_PORT") npx tsx scripts/drills/restore-writes.ts setup
DATABASE_URL=$(url_at "$PRIMARY_PORT") npx tsx scripts/drills/restore-writes.ts deposit before-backup

step "base backup (pg_basebackup)"
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$WORK/base" -X stream -c fast
du -sh "$WORK/base" | cut -f1 | sed 's/^/base backup size: /'

step "writes after the backup, up to the recovery point"
DATABASE_URL=$(url_at "$PRIMARY_PORT") npx tsx scripts/drills/restore-writes.ts deposit after-backup
sleep 1
TARGET=$(psql_at "$PRIMARY_PORT" postgres "select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'")
echo "recovery target time: $TARGET"
sleep 1

step "a write after the recovery point (the mistake to undo), then the primary is lost"
DATABASE_URL=$(url_at "$PRIMARY_PORT") npx tsx scripts/drills/restore-writes.ts deposit after-target
psql_at "$PRIMARY_PORT" postgres 'select pg_switch_wal()' >/dev/null
until [ "$(psql_at "$PRIMARY_PORT" postgres "select last_archived_wal >= pg_walfile_name(pg_current_wal_lsn() - 1) from pg_stat_archiver")" = t ]; do sleep 0.2; done
as_pg "$PG_BIN/pg_ctl" -D "$WORK/primary" -m immediate stop >/dev/null
echo "WAL segments archived: $(ls "$WORK/wal" | wc -l)"

step "restore: the base backup into a new cluster, archived WAL replayed to $TARGET (port $RESTORED_PORT)"
as_pg cp -a "$WORK/base" "$WORK/restored"
as_pg tee -a "$WORK/restored/postgresql.conf" >/dev/null <<CONF
port = $RESTORED_PORT
archive_mode = off
restore_command = 'cp $WORK/wal/%f %p'
recovery_target_time = '$TARGET'
recovery_target_action = 'promote'
CONF
as_pg touch "$WORK/restored/recovery.signal"
started=$(date +%s.%N)
as_pg "$PG_BIN/pg_ctl" -D "$WORK/restored" -l "$WORK/restored.log" -w -t 300 start >/dev/null
until [ "$(psql_at "$RESTORED_PORT" postgres 'select pg_is_in_recovery()')" = f ]; do sleep 0.2; done
echo "recovered and promoted in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $started}") s"
grep -E 'recovery stopping|consistent recovery state|selected new timeline' "$WORK/restored.log" | sed 's/^.*LOG: */postgres: /' || true

step "the restored database: the writes before the point are there, the one after it is not"
DATABASE_URL=$(url_at "$RESTORED_PORT") npx tsx scripts/drills/restore-writes.ts verify before-backup,after-backup,-after-target

step "npm run ledger:check against the restored database"
DATABASE_URL=$(url_at "$RESTORED_PORT") npm run -s ledger:check

step "restore drill passed"
