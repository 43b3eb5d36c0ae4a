#!/usr/bin/env bash
# The main command: installs what is missing, builds, starts a local deployment — a
# throwaway PostgreSQL and the table service (which applies the migrations as it
# starts), both under .local/ — and plays a few games between trix-bot processes,
# one of them shown live, then prints every game's recorded result. Everything
# started here is stopped on exit, Ctrl-C included.
#
#   scripts/run-local.sh                          # 3 games, about a minute
#   GAMES=5 MODES=classic-partner,complex-solo scripts/run-local.sh
#   PACE=0s KINGDOMS=1 scripts/run-local.sh       # as fast as the bots can play
#   scripts/run-local.sh --watch=-1 --seed=7      # extra flags go to trix-demo
#   scripts/run-local.sh --play                   # you play seat 0 against bots
#
# Settings (environment): GAMES (3), MODES (complex-partner,classic-solo,complex-solo),
# STAKED (index of the staked game, 1), WATCH (index of the game shown, 0), PACE (how
# long the watched table's bots think, 120ms), KINGDOMS (4), KEEP_DATA=1 keeps the
# database folder. trix-demo --help lists the rest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

run_dir=$PWD/.local/run
log_dir=$run_dir/logs
# PostgreSQL runs as the "postgres" user when we are root, and the checkout may sit
# where that user cannot go (/root is private): its data goes under /tmp.
pg_dir=$(mktemp -d /tmp/mamlaka-local-pg.XXXXXX)
service_pid=""
ratings_pid=""
demo_pid=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$demo_pid" ] && kill -0 "$demo_pid" 2>/dev/null; then
    kill -TERM "$demo_pid" 2>/dev/null || true
    wait "$demo_pid" 2>/dev/null || true
  fi
  if [ -n "$ratings_pid" ] && kill -0 "$ratings_pid" 2>/dev/null; then
    kill -TERM "$ratings_pid" 2>/dev/null || true
    wait "$ratings_pid" 2>/dev/null || true
  fi
  if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then
    kill -TERM "$service_pid" 2>/dev/null || true  # drains, then exits
    wait "$service_pid" 2>/dev/null || true
  fi
  scripts/pg.sh stop "$pg_dir" 2>/dev/null || true
  if [ "${KEEP_DATA:-0}" != 1 ]; then rm -rf "$pg_dir"; else echo "run-local: data kept in $pg_dir"; fi
  echo "run-local: stopped everything (logs in $log_dir)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$log_dir"
mkdir -p "$log_dir"
chmod 755 "$pg_dir"
pg_port=$(free_port)
database_url=$(scripts/pg.sh start "$pg_dir" "$pg_port")

service_port=$(free_port)
metrics_port=$(free_port)
service_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
address=127.0.0.1:$service_port
echo "run-local: PostgreSQL on 127.0.0.1:$pg_port, table service on $address," \
  "metrics on http://127.0.0.1:$metrics_port/metrics"

# Secrets go through the environment, not the command line (visible to ps).
# Every bot connects from 127.0.0.1, so the per-address rate limit is lifted.
MAMLAKA_DATABASE_URL=$database_url MAMLAKA_SERVICE_TOKEN=$service_token \
  build/bin/table-service \
  --listen="$address" \
  --instance_id=local-1 \
  --migrations_dir=migrations \
  --metrics_port="$metrics_port" \
  --peer_rate=100000 --peer_burst=100000 \
  >"$log_dir/table-service.log" 2>&1 &
service_pid=$!

for _ in $(seq 1 150); do
  grep -q '"msg":"serving"' "$log_dir/table-service.log" 2>/dev/null && break
  if ! kill -0 "$service_pid" 2>/dev/null; then
    echo "run-local: the table service exited; its log:" >&2
    cat "$log_dir/table-service.log" >&2
    exit 1
  fi
  sleep 0.2
done
grep -q '"msg":"serving"' "$log_dir/table-service.log" || {
  echo "run-local: the table service is not serving after 30 s; its log:" >&2
  tail -n 20 "$log_dir/table-service.log" >&2
  exit 1
}

# The ratings service rates every finished game from the outbox and settles stakes.
ratings_port=$(free_port)
MAMLAKA_DATABASE_URL=$database_url MAMLAKA_SERVICE_TOKEN=$service_token \
  build/bin/ratings-service --listen="127.0.0.1:$ratings_port" --migrations_dir=migrations \
  --metrics_port="$(free_port)" >"$log_dir/ratings-service.log" 2>&1 &
ratings_pid=$!
echo "run-local: ratings service on 127.0.0.1:$ratings_port"

# --play: a person plays seat 0 in this terminal against three bots (trix-play);
# MODE (complex-solo) and KINGDOMS (4) as above, extra flags go to trix-play.
if [ "${1:-}" = "--play" ]; then
  shift
  play_status=0
  MAMLAKA_SERVICE_TOKEN=$service_token build/bin/trix-play --address="$address" \
    --practice --mode="${MODE:-complex-solo}" --kingdoms="${KINGDOMS:-4}" "$@" \
    2>"$log_dir/trix-play.log" || play_status=$?
  exit "$play_status"
fi

MAMLAKA_DEMO_SERVICE_TOKEN=$service_token build/bin/trix-demo \
  --address="$address" \
  --games="${GAMES:-3}" \
  --modes="${MODES:-complex-partner,classic-solo,complex-solo}" \
  --staked="${STAKED:-1}" \
  --watch="${WATCH:-0}" \
  --pace="${PACE:-120ms}" \
  --kingdoms="${KINGDOMS:-4}" \
  --log_dir="$log_dir" \
  "$@" &
demo_pid=$!
# `wait` returns early when a signal arrives, so the traps run at once.
demo_status=0
wait "$demo_pid" || demo_status=$?
demo_pid=""

# Each player's rating change per mode and balance change, from the ratings
# service's store (a staked game whose stakers have no account stays unsettled).
sleep 1
echo "run-local: rating changes (display = 1000 + 40 (mu - 3 sigma))"
psql -X -q "$database_url" -c "
  SELECT player_id, mode, count(*) AS games,
         (array_agg(display_before ORDER BY outbox_id))[1] AS display_before,
         (array_agg(display_after ORDER BY outbox_id DESC))[1] AS display_after,
         round((array_agg(mu_after ORDER BY outbox_id DESC))[1]::numeric
               - (array_agg(mu_before ORDER BY outbox_id))[1]::numeric, 3) AS mu_change
  FROM ratings.rating_history GROUP BY player_id, mode ORDER BY mode, player_id" || true
echo "run-local: balance changes from staked games"
psql -X -q "$database_url" -c "
  SELECT g.game_id, g.settlement, g.note,
         COALESCE((SELECT string_agg(substr(l.account_id, 8) || ' ' || l.amount, ', ')
                   FROM ratings.lines l JOIN ratings.entries e USING (entry_id)
                   WHERE e.game_id = g.game_id AND l.account_id LIKE 'player:%'), '') AS moves
  FROM ratings.applied_games g WHERE g.settlement <> 'unstaked'" || true
exit "$demo_status"
