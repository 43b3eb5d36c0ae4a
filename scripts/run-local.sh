#!/usr/bin/env bash
# The main command: installs what is missing, builds, and runs a local deployment —
# a throwaway PostgreSQL, two table-service instances, the ratings service and the
# matchmaking service — then plays real games through matchmaking: players queue (a
# party, a staked table, a player alone), two bot accounts' trix-bot processes fill
# the empty seats, one table is shown live, and the end shows every game's recorded
# result and each player's rating and balance change. Everything started here is
# stopped on exit, Ctrl-C included.
#
#   scripts/run-local.sh                     # three tables, a minute or two
#   scripts/run-local.sh --play              # you play a seat yourself (trix-play)
#   PACE=0s scripts/run-local.sh             # the watched table as fast as it goes
#   scripts/run-local.sh --stake=0 --solo_mode=classic-solo   # flags go to trix-demo
#
# Settings (environment): PACE (how long the people at the watched table think,
# 60ms), BOT_FILL_WAIT (how long matchmaking waits before bots fill seats, 2s),
# STAKE_LEVELS (100), KEEP_DATA=1 keeps the database folder. trix-demo --help lists
# the rest. Logs go to .local/run/logs.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

log_dir=$PWD/.local/run/logs
# PostgreSQL runs as the "postgres" user when we are root, and the checkout may sit
# where that user cannot go (/root is private): its data goes under /tmp.
pg_dir=$(mktemp -d /tmp/mamlaka-local-pg.XXXXXX)
pids=()  # services, stopped in reverse order

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true  # each drains, then exits
    wait "${pids[i]}" 2>/dev/null || true
  done
  scripts/pg.sh stop "$pg_dir" 2>/dev/null || true
  if [ "${KEEP_DATA:-0}" != 1 ]; then rm -rf "$pg_dir"; else echo "run-local: data kept in $pg_dir"; fi
  echo "run-local: stopped everything (logs in $log_dir)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME BINARY FLAGS...: starts a service with the deployment's secrets in its
# environment (not on its command line, which ps shows) and waits until it serves.
start() {
  local name=$1
  shift
  MAMLAKA_DATABASE_URL=$database_url MAMLAKA_SERVICE_TOKEN=$service_token \
    MAMLAKA_RATINGS_TOKEN=$service_token "$@" >"$log_dir/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    grep -q '"msg":"serving"' "$log_dir/$name.log" 2>/dev/null && return 0
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then
      echo "run-local: $name exited; its log:" >&2
      cat "$log_dir/$name.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "run-local: $name is not serving after 60 s; its log:" >&2
  tail -n 20 "$log_dir/$name.log" >&2
  exit 1
}

rm -rf "$log_dir"
mkdir -p "$log_dir"
chmod 755 "$pg_dir"
database_url=$(scripts/pg.sh start "$pg_dir" "$(free_port)")
service_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')

# Two table instances on one database: each registers itself, and matchmaking
# places every new table on the least loaded one.
table_ports=()
for i in 1 2; do
  port=$(free_port)
  table_ports+=("$port")
  start "table-service-$i" build/bin/table-service --listen="127.0.0.1:$port" \
    --instance_id="local-$i" --migrations_dir=migrations --metrics_port=-1 \
    --peer_rate=100000 --peer_burst=100000
done
ratings_port=$(free_port)
start ratings-service build/bin/ratings-service --listen="127.0.0.1:$ratings_port" \
  --migrations_dir=migrations --metrics_port=-1
matchmaking_port=$(free_port)
start matchmaking-service build/bin/matchmaking-service \
  --listen="127.0.0.1:$matchmaking_port" --migrations_dir=migrations --metrics_port=-1 \
  --ratings_address="127.0.0.1:$ratings_port" --stake_levels="${STAKE_LEVELS:-100}" \
  --bot_fill_wait="${BOT_FILL_WAIT:-2s}"
echo "run-local: PostgreSQL ($database_url), table service on 127.0.0.1:${table_ports[0]}" \
  "and 127.0.0.1:${table_ports[1]}, ratings on 127.0.0.1:$ratings_port, matchmaking on" \
  "127.0.0.1:$matchmaking_port"

# --play: a person takes a seat through matchmaking in this terminal (trix-play);
# bots fill the other seats after BOT_FILL_WAIT.
if [ "${1:-}" = "--play" ]; then
  shift
  MAMLAKA_DEMO_SERVICE_TOKEN=$service_token build/bin/trix-demo \
    --matchmaking="127.0.0.1:$matchmaking_port" --ratings="127.0.0.1:$ratings_port" \
    --bots_only --log_dir="$log_dir" >"$log_dir/trix-demo.log" 2>&1 &
  pids+=($!)
  play_status=0
  MAMLAKA_SERVICE_TOKEN=$service_token build/bin/trix-play \
    --matchmaking="127.0.0.1:$matchmaking_port" --player="you-$RANDOM" \
    --mode="${MODE:-complex-solo}" "$@" 2>"$log_dir/trix-play.log" || play_status=$?
  exit "$play_status"
fi

demo_status=0
MAMLAKA_DEMO_SERVICE_TOKEN=$service_token build/bin/trix-demo \
  --matchmaking="127.0.0.1:$matchmaking_port" --ratings="127.0.0.1:$ratings_port" \
  --pace="${PACE:-60ms}" --log_dir="$log_dir" "$@" &
pids+=($!)
# `wait` returns early when a signal arrives, so the traps run at once.
wait "${pids[-1]}" || demo_status=$?
unset 'pids[-1]'
exit "$demo_status"
