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

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# PostgreSQL runs as the "postgres" user when we are root: its data goes under /tmp.
pg_dir=$(mktemp -d /tmp/mamlaka-match-pg.XXXXXX)
pids=()  # services, stopped in reverse order

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  "$root/scripts/pg.sh" stop "$pg_dir" 2>/dev/null || true
  rm -rf "$pg_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME BINARY FLAGS...: as in run-local.sh, secrets through the environment,
# and waits until the service serves.
start() {
  local name=$1
  shift
  MAMLAKA_DATABASE_URL=$database_url MAMLAKA_SERVICE_TOKEN=$service_token \
    MAMLAKA_RATINGS_TOKEN=$service_token "$@" >"$log_dir/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    grep -q '"msg":"serving"' "$log_dir/$name.log" 2>/dev/null && return 0
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then
      echo "service-match: $name exited; its log:" >&2
      cat "$log_dir/$name.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "service-match: $name is not serving after 60 s" >&2
  exit 1
}

rm -rf "$log_dir"
mkdir -p "$log_dir"
chmod 755 "$pg_dir"
database_url=$("$root/scripts/pg.sh" start "$pg_dir" "${PG_PORT:-$(free_port)}")
service_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')

table_ports=()
for i in 1 2; do
  port=$(free_port)
  table_ports+=("$port")
  start "table-service-$i" "$bin/table-service" --listen="127.0.0.1:$port" \
    --instance_id="match-$i" --migrations_dir="$root/migrations" --metrics_port=-1 \
    --peer_rate=100000 --peer_burst=100000
done
ratings_port=$(free_port)
start ratings-service "$bin/ratings-service" --listen="127.0.0.1:$ratings_port" \
  --migrations_dir="$root/migrations" --metrics_port=-1
matchmaking_port=$(free_port)
# A bot stream's tables are released when matchmaking sees their games end, which it
# checks at each keep-alive.
start matchmaking-service "$bin/matchmaking-service" \
  --listen="127.0.0.1:$matchmaking_port" --migrations_dir="$root/migrations" \
  --metrics_port=-1 --ratings_address="127.0.0.1:$ratings_port" \
  --bot_fill_wait="${BOT_FILL_WAIT:-300ms}" --keep_alive_every=1s

match_status=0
MAMLAKA_MATCH_SERVICE_TOKEN=$service_token "$bin/trix-service-match" \
  --matchmaking="127.0.0.1:$matchmaking_port" --ratings="127.0.0.1:$ratings_port" \
  --bot_binary="$bin/trix-bot" --log_dir="$log_dir" "$@" &
pids+=($!)
wait "${pids[-1]}" || match_status=$?
unset 'pids[-1]'
exit "$match_status"
