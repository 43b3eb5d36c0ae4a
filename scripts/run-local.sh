#!/usr/bin/env bash
# The main command: installs what is missing, builds, and runs a local deployment —
# a throwaway PostgreSQL, two table-service instances, the ratings service and the
# matchmaking service — then plays real games through matchmaking: players queue (a
# party, a staked table, a player alone), two bot accounts' trix-bot processes fill
# the empty seats, one table is shown live, and the end shows every game's recorded
# result and each player's rating and balance change. Then a private room: two
# people (bots/python/example_room.py, a backend acting for them) and two bot
# accounts in the empty seats play a game and its rematch, and the room's series is
# printed. Everything started here is stopped on exit, Ctrl-C included.
#
#   scripts/run-local.sh                     # three tables, a minute or two
#   scripts/run-local.sh --play              # you play a seat yourself (trix-play)
#   PACE=0s scripts/run-local.sh             # the watched table as fast as it goes
#   scripts/run-local.sh --stake=0 --solo_mode=classic-solo   # flags go to trix-demo
#
# Settings (environment): PACE (how long the people at the watched table think,
# 60ms), BOT_FILL_WAIT (how long matchmaking waits before bots fill seats, 2s),
# STAKE_LEVELS (100), KEEP_DATA=1 keeps the database folder. trix-demo --help lists
# the rest. ROOM=0 leaves the private room out. Logs go to .local/run/logs.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

# shellcheck source=scripts/lib/stack.sh
. scripts/lib/stack.sh
root=$PWD
bin=$root/build/bin
log_dir=$PWD/.local/run/logs
# PostgreSQL runs as the "postgres" user when we are root, and the checkout may sit
# where that user cannot go (/root is private): its data goes under /tmp.
pg_dir=$(mktemp -d /tmp/mamlaka-local-pg.XXXXXX)

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stack_stop  # each service drains, then exits
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
url=$(scripts/pg.sh start "$pg_dir" "$(free_port)")
token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')

stack_deployment local --stake_levels="${STAKE_LEVELS:-100}" \
  --bot_fill_wait="${BOT_FILL_WAIT:-2s}"
matchmaking=127.0.0.1:${port[matchmaking-service]}
ratings=127.0.0.1:${port[ratings-service]}
echo "run-local: PostgreSQL ($url), table service on 127.0.0.1:${port[table-service-1]}" \
  "and 127.0.0.1:${port[table-service-2]}, ratings on $ratings, matchmaking on $matchmaking"

# --play: a person takes a seat through matchmaking in this terminal (trix-play);
# bots fill the other seats after BOT_FILL_WAIT.
if [ "${1:-}" = "--play" ]; then
  shift
  MAMLAKA_DEMO_SERVICE_TOKEN=$token "$bin/trix-demo" --matchmaking="$matchmaking" \
    --ratings="$ratings" --bots_only --log_dir="$log_dir" >"$log_dir/trix-demo.log" 2>&1 &
  stack_adopt trix-demo $!
  play_status=0
  MAMLAKA_SERVICE_TOKEN=$token "$bin/trix-play" --matchmaking="$matchmaking" \
    --player="you-$RANDOM" --mode="${MODE:-complex-solo}" "$@" \
    2>"$log_dir/trix-play.log" || play_status=$?
  exit "$play_status"
fi

# A private room after the show: the bot accounts served again (trix-demo
# --bots_only) so that two bots take the empty seats, then the two people's backend
# (example_room.py with the operator's token) plays two games, the second by
# Rematch, and prints the series.
play_room() {
  local mm_log=$log_dir/matchmaking-service.log connected
  connected=$(grep -c '"bot connected"' "$mm_log" || true)
  echo
  echo "run-local: a private room: two people, two bots, a game and a rematch"
  MAMLAKA_DEMO_SERVICE_TOKEN=$token "$bin/trix-demo" --matchmaking="$matchmaking" \
    --ratings="$ratings" --bots_only --log_dir="$log_dir/room" >"$log_dir/room-bots.log" 2>&1 &
  stack_adopt room-bots $!
  # Both bot accounts connected to matchmaking, so that they (not the autopilot)
  # are lent the empty seats.
  for _ in $(seq 100); do
    [ "$(grep -c '"bot connected"' "$mm_log" || true)" -ge $((connected + 2)) ] && break
    sleep 0.2
  done
  MAMLAKA_SERVICE_TOKEN=$token PYTHONPATH="$root/build/python:$root/bots/python" \
    /usr/bin/python3 "$root/bots/python/example_room.py" "$matchmaking" --games=2 \
    --players="room-ann-$RANDOM,room-bob-$RANDOM" --empty-seats=bots
}

demo_status=0
MAMLAKA_DEMO_SERVICE_TOKEN=$token "$bin/trix-demo" --matchmaking="$matchmaking" \
  --ratings="$ratings" --pace="${PACE:-60ms}" --log_dir="$log_dir" "$@" &
stack_adopt trix-demo $!
# `wait` returns early when a signal arrives, so the traps run at once.
wait "${pid[trix-demo]}" || demo_status=$?
unset 'pid[trix-demo]'
if [ "$demo_status" = 0 ] && [ "${ROOM:-1}" = 1 ]; then
  play_room || demo_status=$?
fi
exit "$demo_status"
