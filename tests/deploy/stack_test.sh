#!/usr/bin/env bash
# The container stack, end to end: builds the images, brings deploy/compose.yaml up
# (PostgreSQL, the migration job, table-1), plays games between containerised bots
# (trix-demo seats a trix-bot per seat), kills -9 the table service mid-game and
# checks that Docker restarts it, that it resumes its tables, and that every game
# still finishes with a consistent result; then tears everything down (data too).
#
#   tests/deploy/stack_test.sh          # about 2 minutes once the images exist;
#                                       # the first image build takes much longer
#
# Not run by CTest or CI: building the images takes many minutes on two cores
# (docs/operations.md). Needs root (or the docker group), dockerd running, and
# Debian's docker.io, docker-compose and mmdebstrap (deploy/docker/base-image.sh).
# Settings: GAMES (3), KINGDOMS (1), PACE (400ms: the watched game's bots think that
# long, so that it is still running when the table service is killed), SKIP_BUILD=1
# uses the images already built.
# When matchmaking-service and ratings-service exist, the games are to go through
# matchmaking (compose's "matchmaking" profile) and the ratings checked too.
set -euo pipefail
cd "$(dirname "$0")/../.."

docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}
compose=(docker-compose)
command -v docker-compose >/dev/null || compose=("$docker" compose)
project=mamlaka-stack-$$
export TAG=${TAG:-dev}
export POSTGRES_IMAGE=${POSTGRES_IMAGE:-mamlaka/postgres:15}
export POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
export MAMLAKA_SERVICE_TOKEN=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
export TABLE_PORT=""   # a free port on 127.0.0.1
export MATCHMAKING_PORT=""
export GAMES=${GAMES:-3} KINGDOMS=${KINGDOMS:-1} PACE=${PACE:-400ms}
logs=$(mktemp -d /tmp/mamlaka-stack.XXXXXX)
dc() { "${compose[@]}" -p "$project" -f deploy/compose.yaml "$@"; }
psql_() { dc exec -T postgres psql -U mamlaka -d mamlaka -tAc "$1"; }
fail() { echo "stack_test: FAIL: $*" >&2; exit 1; }

cleanup() {
  local status=$?
  trap - EXIT
  dc logs --no-color >"$logs/compose.log" 2>&1 || true
  dc --profile demo down -v --remove-orphans >/dev/null 2>&1 || true
  echo "stack_test: stack removed; logs in $logs"
  exit "$status"
}
trap cleanup EXIT

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  start=$(date +%s)
  tests/deploy/build-images.sh table-service migrate trix-bot
  if ! "$docker" image inspect "$POSTGRES_IMAGE" >/dev/null 2>&1; then
    DOCKER_BUILDKIT=1 "$docker" build --network=host -f deploy/docker/postgres.Dockerfile \
      --build-arg BASE_IMAGE="${BASE_IMAGE:-mamlaka/debian:12-slim}" -t "$POSTGRES_IMAGE" deploy/docker
  fi
  echo "stack_test: images ready in $(($(date +%s) - start)) s"
fi

start=$(date +%s)
dc up -d table-1
echo "stack_test: stack up in $(($(date +%s) - start)) s"

dc run --rm demo >"$logs/demo.log" 2>&1 &
demo_pid=$!

# Wait until a game is well under way, then kill the table service's process.
running=""
for _ in $(seq 1 240); do
  running=$(psql_ "SELECT id FROM games WHERE finished IS NULL AND log_length > 40 LIMIT 1" 2>/dev/null || true)
  [ -n "$running" ] && break
  kill -0 "$demo_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$running" ] || { cat "$logs/demo.log"; fail "no game got under way"; }
before=$(psql_ "SELECT log_length FROM games WHERE id = '$running'")
table=$(dc ps -q table-1)
pid=$("$docker" inspect -f '{{.State.Pid}}' "$table")
kill -9 "$pid"
echo "stack_test: killed table-1 (pid $pid) with game $running at log entry $before"

wait "$demo_pid" && demo_status=0 || demo_status=$?
cat "$logs/demo.log"
[ "$demo_status" -eq 0 ] || fail "trix-demo exited $demo_status"

restarts=$("$docker" inspect -f '{{.RestartCount}}' "$table")
[ "$restarts" -ge 1 ] || fail "table-1 was not restarted"
unfinished=$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL")
finished=$(psql_ "SELECT count(*) FROM games WHERE finished IS NOT NULL")
after=$(psql_ "SELECT log_length FROM games WHERE id = '$running' AND finished IS NOT NULL")
[ "$unfinished" -eq 0 ] || fail "$unfinished game(s) unfinished"
[ "$finished" -eq "$GAMES" ] || fail "$finished game(s) finished, expected $GAMES"
[ -n "$after" ] && [ "$after" -gt "$before" ] || fail "the killed game did not go on"
if grep -q '✗' "$logs/demo.log"; then fail "a result failed its checks"; fi
echo "stack_test: $finished games finished; game $running went on from entry $before to" \
  "$after across the kill; table-1 restarted $restarts time(s)"
echo "1 passed, 0 failed"
