#!/usr/bin/env bash
# Load test of the matchmaking service (docs/benchmarks.md, "Matchmaking"): starts a
# throwaway PostgreSQL (scripts/pg.sh), one build/bin/table-service, one
# build/bin/ratings-service and one build/bin/matchmaking-service (reading ratings
# through the ratings service, as in production) on loopback, runs
# build/bin/matchmaking-load against them (it first writes its players' ratings,
# spread like a real population, into the ratings service's store), and stops
# everything on exit.
#
#   tests/load/run_matchmaking_load.sh                        # 1000 players, 20 s
#   tests/load/run_matchmaking_load.sh --players=2000 --duration=30s
#
# Beside a run, tests/load/cpu_by_process.py splits the machine's CPU by process and
# PostgreSQL's by the service each backend works for.
#
# Arguments go to matchmaking-load. Environment: PG_PORT (55471), TABLE_PORT (50093),
# MM_PORT (50094), RATINGS_PORT (50095); MM_FLAGS, TABLE_FLAGS, RATINGS_FLAGS: extra
# flags; KEEP_LOGS=1 keeps the logs; MM_BIN, TABLE_BIN: another matchmaking-service or
# table-service binary (A/B).
# Both services run as in production (fsync and synchronous commit on) except that
# the table service's per-address rate limit is off (every table comes from the one
# matchmaking address) and clocks are an hour, so the autopilot never acts.
set -euo pipefail
cd "$(dirname "$0")/../.."

pg_port=${PG_PORT:-55471}
table_port=${TABLE_PORT:-50093}
mm_port=${MM_PORT:-50094}
ratings_port=${RATINGS_PORT:-50095}
mm_bin=${MM_BIN:-build/bin/matchmaking-service}
table_bin=${TABLE_BIN:-build/bin/table-service}
for bin in "$table_bin" build/bin/ratings-service "$mm_bin" \
  build/bin/matchmaking-load; do
  [ -x "$bin" ] || { echo "run_matchmaking_load.sh: $bin is missing" >&2; exit 2; }
done

dir=$(mktemp -d)
chmod 755 "$dir"
pids=()
cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  scripts/pg.sh stop "$dir"
  if [ "${KEEP_LOGS:-0}" = 1 ]; then echo "logs kept in $dir" >&2; else rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_serving() {  # log file, pid
  for _ in $(seq 1 300); do
    grep -q '"msg":"serving"' "$1" && return 0
    kill -0 "$2" 2>/dev/null || { cat "$1" >&2; exit 1; }
    sleep 0.1
  done
  echo "run_matchmaking_load.sh: $1 never said serving" >&2
  exit 1
}

url=$(scripts/pg.sh start "$dir" "$pg_port")
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')

# shellcheck disable=SC2086
"$table_bin" --listen="127.0.0.1:$table_port" --metrics_port=-1 \
  --database_url="$url" --service_token="$token" --migrations_dir=migrations \
  --instance_id=load --peer_rate=0 --io_threads=16 --db_connections=16 \
  --default_contract_ms=3600000 --default_doubling_ms=3600000 --default_card_ms=3600000 \
  ${TABLE_FLAGS:-} >"$dir/table.log" 2>&1 &
pids+=($!)
wait_serving "$dir/table.log" "${pids[-1]}"

# shellcheck disable=SC2086
build/bin/ratings-service --listen="127.0.0.1:$ratings_port" --metrics_port=-1 \
  --database_url="$url" --service_token="$token" --migrations_dir=migrations \
  ${RATINGS_FLAGS:-} >"$dir/ratings.log" 2>&1 &
pids+=($!)
wait_serving "$dir/ratings.log" "${pids[-1]}"

# shellcheck disable=SC2086
"$mm_bin" --listen="127.0.0.1:$mm_port" --metrics_port=-1 \
  --database_url="$url" --service_token="$token" --migrations_dir=migrations \
  --table_address="127.0.0.1:$table_port" --ratings_address="127.0.0.1:$ratings_port" \
  --log_level=info \
  ${MM_FLAGS:-} >"$dir/matchmaking.log" 2>&1 &
pids+=($!)
wait_serving "$dir/matchmaking.log" "${pids[-1]}"

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
build/bin/matchmaking-load --matchmaking="127.0.0.1:$mm_port" --service_token="$token" \
  --database_url="$url" --players=1000 --duration=20s "$@"
