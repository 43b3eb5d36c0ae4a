#!/usr/bin/env bash
# The arena through the real services: starts a local deployment the way
# scripts/run-local.sh does — a throwaway PostgreSQL, two table-service instances,
# the ratings service and the matchmaking service with a short bot-fill wait — and
# runs trix-service-match against it: strategies A and B play through matchmaking,
# every seat an external trix-bot process (a party of two of one strategy, two bot
# accounts of the other filling the empty seats), half the games each way round.
# Everything started here is stopped on exit, Ctrl-C included.
#
#   scripts/service-match.sh --games=40 --tables=8 --a=search --b=heuristic
#   scripts/service-match.sh --games=2 --tables=2 --search_budget=5ms --json=/tmp/m.json
#
# Flags go to trix-service-match (build/bin/trix-service-match --help). Settings
# (environment): MAMLAKA_BIN (the binaries, build/bin), BOT_FILL_WAIT (300ms),
# PG_PORT (PostgreSQL's port; a free one by default), LOG_DIR
# (.local/service-match/logs). Needs the table-service, ratings-service,
# matchmaking-service, trix-bot and trix-service-match binaries built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
log_dir=${LOG_DIR:-$root/.local/service-match/logs}

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"

# PostgreSQL runs as the "postgres" user when we are root: its data goes under /tmp.
pg_dir=$(mktemp -d /tmp/mamlaka-match-pg.XXXXXX)

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stack_stop
  "$root/scripts/pg.sh" stop "$pg_dir" 2>/dev/null || true
  rm -rf "$pg_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$log_dir"
mkdir -p "$log_dir"
chmod 755 "$pg_dir"
url=$("$root/scripts/pg.sh" start "$pg_dir" "${PG_PORT:-$(free_port)}")
token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')

# A bot stream's tables are released when matchmaking sees their games end, which it
# checks at each keep-alive.
stack_deployment match --bot_fill_wait="${BOT_FILL_WAIT:-300ms}" --keep_alive_every=1s

match_status=0
MAMLAKA_MATCH_SERVICE_TOKEN=$token "$bin/trix-service-match" \
  --matchmaking="127.0.0.1:${port[matchmaking-service]}" \
  --ratings="127.0.0.1:${port[ratings-service]}" \
  --bot_binary="$bin/trix-bot" --log_dir="$log_dir" "$@" &
stack_adopt trix-service-match $!
wait "${pid[trix-service-match]}" || match_status=$?
unset 'pid[trix-service-match]'
exit "$match_status"
