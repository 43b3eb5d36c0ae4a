#!/usr/bin/env bash
# The container stack, end to end: builds the images, brings deploy/compose.yaml's
# "matchmaking" profile up (PostgreSQL, the migration job, table-1 and table-2,
# ratings, matchmaking, the bot pool), and runs the `play` container: trix-demo
# queues its players through matchmaking (a party, a staked table of four, a
# player alone), bots fill the empty seats, and a trix-bot process plays each seat,
# all inside containers. Mid-game it kills -9 the table service holding a game
# under way, and checks that Docker restarts it, that the game still finishes,
# that every game finished with a consistent result and was rated once (its
# rating history, per seat) and its money moved once (build/bin/trix-end-checks, run
# on the host against the stack's PostgreSQL, published on a free loopback port for
# the test). Then the `demo` container
# (trix-table-demo: tables opened on table-1 directly, no matchmaking) plays a
# game, and everything is torn down (data too).
#
#   BINARIES=build/bin tests/deploy/stack_test.sh   # some 3 minutes: the images
#                     # of the programs scripts/build.sh built (seconds when the
#                     # layer cache is warm; the first time some 2 minutes more)
#   tests/deploy/stack_test.sh          # the images' own build compiles everything
#                                       # in the Dockerfile's builder: far longer
#   SKIP_BUILD=1 tests/deploy/stack_test.sh   # with the images already built
#
# scripts/test.sh (CI) runs it the first way, beside the CTest tests, as its
# `stack` phase (one test in the counts; MAMLAKA_STACK=0 skips it), and starts
# dockerd for it when none runs. By hand it needs root (or the docker group),
# dockerd running, Debian's docker.io, docker-compose and mmdebstrap
# (deploy/docker/base-image.sh), which scripts/install-deps.sh installs, and the
# host's build of trix-end-checks (scripts/build.sh; in BINARIES when that is set).
# Settings: PACE (400ms: the people of the watched table think that long, so that
# its game is still under way when its table service is killed), BINARIES (above),
# KEEP=1 leaves the stack up (tear it down with the command printed).
set -euo pipefail
cd "$(dirname "$0")/../.."

docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}
compose=(docker-compose)
command -v docker-compose >/dev/null || compose=("$docker" compose)
project=mamlaka-stack-$$
export TAG=${TAG:-dev}
export POSTGRES_IMAGE=${POSTGRES_IMAGE:-mamlaka/postgres:15}
export POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
export TABLE_PORT="" MATCHMAKING_PORT="" RATINGS_PORT=""  # free ports on 127.0.0.1
export PACE=${PACE:-400ms} GAMES=1 KINGDOMS=1
logs=$(mktemp -d /tmp/mamlaka-stack.XXXXXX)
# The stack's PostgreSQL on a free loopback port as well, for trix-end-checks on the
# host (the deployment itself publishes no database port).
cat >"$logs/postgres-port.yaml" <<'EOF'
services:
  postgres:
    ports:
      - "127.0.0.1::5432"
EOF
dc() {
  "${compose[@]}" -p "$project" -f deploy/compose.yaml -f "$logs/postgres-port.yaml" \
    --profile matchmaking "$@"
}
fail() { echo "stack_test: FAIL: $*" >&2; exit 1; }
end_checks=${BINARIES:-build/bin}/trix-end-checks
[ -x "$end_checks" ] || fail "$end_checks is missing (scripts/build.sh builds it)"

psql_() { dc exec -T postgres psql -U mamlaka -d mamlaka -v ON_ERROR_STOP=1 -tAc "$1"; }

cleanup() {
  local status=$?
  trap - EXIT
  dc logs --no-color >"$logs/compose.log" 2>&1 || true
  if [ "${KEEP:-0}" = 1 ]; then
    echo "stack_test: stack kept: ${compose[*]} -p $project -f deploy/compose.yaml" \
      "--profile matchmaking --profile play --profile demo down -v"
  else
    dc --profile play --profile demo down -v --remove-orphans >/dev/null 2>&1 || true
    echo "stack_test: stack removed; logs in $logs"
  fi
  exit "$status"
}
trap cleanup EXIT

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  start=$(date +%s)
  tests/deploy/build-images.sh table-service migrate trix-bot matchmaking-service ratings-service \
    certs
  if ! "$docker" image inspect "$POSTGRES_IMAGE" >/dev/null 2>&1; then
    DOCKER_BUILDKIT=1 "$docker" build --network=host -f deploy/docker/postgres.Dockerfile \
      --build-arg BASE_IMAGE="${BASE_IMAGE:-mamlaka/debian:12-slim}" -t "$POSTGRES_IMAGE" deploy/docker
  fi
  echo "stack_test: images ready in $(($(date +%s) - start)) s"
fi

serving() {  # SERVICE: its log says it serves (grep reads it all: grep -q would
  # stop at the line, and with pipefail the writer's SIGPIPE would fail the check)
  dc logs --no-color "$1" 2>/dev/null | grep '"msg":"serving"' >/dev/null
}
start=$(date +%s)
dc up -d
for _ in $(seq 1 240); do
  serving table-1 && serving table-2 && serving ratings && serving matchmaking &&
    [ "$(psql_ "SELECT count(*) FROM table_instances WHERE NOT draining" 2>/dev/null)" = 2 ] &&
    break
  sleep 0.5
done
serving matchmaking || { dc logs --no-color | tail -n 40; fail "the stack is not serving"; }
echo "stack_test: stack up in $(($(date +%s) - start)) s (two table instances registered)"

dc --profile play run --rm play >"$logs/play.log" 2>&1 &
play_pid=$!

# Wait until the watched game (Alice's: its people think PACE a move, some 90 s
# a game at 400ms) is well under way but far from its end (a game is some 440
# entries), then kill -9 the table service that holds it. Only that game is paced:
# the others play without thinking and may end (in seconds) before the kill.
running="" owner=""
for _ in $(seq 1 480); do
  read -r running owner < <(psql_ "SELECT g.id, g.lease_owner FROM games g
      WHERE g.finished IS NULL AND g.log_length BETWEEN 40 AND 250
        AND EXISTS (SELECT 1 FROM game_seats s
                    WHERE s.game_id = g.id AND s.player_id LIKE 'alice-%')" 2>/dev/null |
    tr '|' ' ') || true
  [ -n "$running" ] && break
  kill -0 "$play_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$running" ] || { cat "$logs/play.log"; fail "the watched game did not get under way"; }
owner=${owner%%#*}  # the lease owner is the instance id, then '#' and the process's
case "$owner" in table-1 | table-2) ;; *) fail "game $running is held by '$owner'" ;; esac
before=$(psql_ "SELECT log_length FROM games WHERE id = '$running'")
table=$(dc ps -q "$owner")
pid=$("$docker" inspect -f '{{.State.Pid}}' "$table")
kill -9 "$pid"
echo "stack_test: killed $owner (pid $pid) holding game $running at log entry $before"

wait "$play_pid" && play_status=0 || play_status=$?
cat "$logs/play.log"
[ "$play_status" -eq 0 ] || fail "trix-demo (play) exited $play_status"

restarts=$("$docker" inspect -f '{{.RestartCount}}' "$table")
[ "$restarts" -ge 1 ] || fail "$owner was not restarted"
unfinished=$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL")
finished=$(psql_ "SELECT count(*) FROM games WHERE finished IS NOT NULL")
after=$(psql_ "SELECT log_length FROM games WHERE id = '$running' AND finished IS NOT NULL")
[ "$unfinished" -eq 0 ] || fail "$unfinished game(s) unfinished"
[ "$finished" -ge 3 ] || fail "$finished game(s) finished, expected the demo's 3"
[ -n "$after" ] && [ "$after" -gt "$before" ] || fail "the killed game did not go on"
if grep -q '✗' "$logs/play.log"; then fail "a result failed its checks"; fi
# Every game rated once and its money moved once, once the ratings service has
# caught up with the last one (60 s at most).
database_url="postgresql://mamlaka:$POSTGRES_PASSWORD@$(dc port postgres 5432)/mamlaka"
"$end_checks" --database_url="$database_url" --wait_rated=60s ||
  fail "games not rated exactly once, or money not moved exactly once (above)"
bot_seats=$(psql_ "SELECT count(*) FROM game_seats WHERE bot")
[ "$bot_seats" -gt 0 ] || fail "no seat was played by a bot account"
echo "stack_test: $finished games through matchmaking ($bot_seats seats filled by bots)," \
  "rated and settled once; game $running went on from entry $before to $after across" \
  "the kill; $owner restarted $restarts time(s)"

# Without matchmaking: a table opened on table-1 directly, four bots at it.
dc --profile demo run --rm demo >"$logs/demo.log" 2>&1 || { cat "$logs/demo.log"; fail "trix-table-demo failed"; }
if grep -q '✗' "$logs/demo.log"; then cat "$logs/demo.log"; fail "a table demo result failed its checks"; fi
echo "stack_test: trix-table-demo played a game on table-1 directly"
echo "1 passed, 0 failed"
