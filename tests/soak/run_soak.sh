#!/usr/bin/env bash
# Soak run of the whole deployment (docs/benchmarks.md, "Soak"): a throwaway
# PostgreSQL, two table-service instances, the ratings service and the matchmaking
# service, all on loopback with kernel-chosen ports, and build/bin/matchmaking-soak
# keeping TABLES tables of people playing through matchmaking at human pace: 4 x
# TABLES players arrive over RAMP, queue, play the seat they are given (their table
# takes a turn every THINK, ±50%), and queue again when their game is over; after
# DURATION nobody queues again and the games under way finish. No bot accounts:
# tables are people only (matchmaking's bot fill wait is longer than the run).
#
#   TABLES=300 DURATION=45m RAMP=9m nice -n 19 tests/soak/run_soak.sh   # an hour
#   TABLES=50 DURATION=3m RAMP=30s THINK=50ms tests/soak/run_soak.sh    # a short check
#
# Every 10 s, from the start of the services to the end, the resident memory (RSS)
# of every service process is sampled, with the table and ratings services'
# heap in use as tcmalloc counts it (their /metrics: trix_heap_allocated_bytes),
# the tables each instance hosts and the games under way, into samples.csv. After
# the wind-down the sampling goes on past a finished table's linger (DRAIN), to see
# the memory given back. The run passes when matchmaking-soak saw no error (every
# queue got a seat; no stream broke; no action was refused or lost; no event number
# skipped; every game under way at the end finished), every service is still
# running, the memory holds steady (tests/soak/memory_verdict.py: over the steady
# part — from RAMP + STEADY_AFTER (180 s) to DURATION — no service's heap in use
# grows more than MEM_SLOPE MiB/h (8) beyond what its tables explain, nor its RSS
# over the second half of it (tcmalloc's caches fill first), judged when the steady
# part is 10 min or more; after the drain every table service hosts no
# table and holds at most DRAIN_MB MiB (8) more heap than idle before the run),
# and the end checks (build/bin/trix-end-checks) hold for every game that finished:
# its stored log replays through trix-replay's engine to its recorded result, and
# it was rated and its money moved exactly once.
#
# RAMP should be at least a game's length (a complex-solo game is about 500 turns:
# 8-9 min at THINK=1s), so that games in every phase are under way once it is past.
#
# Environment: TABLES (1000), DURATION (10m), RAMP (DURATION / 4), THINK (1s), MODE
# (complex-solo), MEM_SLOPE, DRAIN_MB, DRAIN (the wait after the wind-down: 150s),
# KEEP_LOGS=1 keeps the folder with the logs, samples.csv and the replayed games;
# MAMLAKA_FAILPOINTS reaches the services (table.leak_finished_tables: a leak the
# memory verdict must catch). Needs build/bin/{table-service,ratings-service,
# matchmaking-service,matchmaking-soak,trix-end-checks,trix-game-cases,
# trix-conformance-compare}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
tables=${TABLES:-1000}
duration=${DURATION:-10m}
think=${THINK:-1s}
mode=${MODE:-complex-solo}
mem_slope=${MEM_SLOPE:-8}
drain_mb=${DRAIN_MB:-8}
drain=${DRAIN:-150s}
steady_after=${STEADY_AFTER:-180}  # s after the ramp: a finished table's linger and more
for b in table-service ratings-service matchmaking-service matchmaking-soak trix-end-checks \
  trix-game-cases trix-conformance-compare; do
  [ -x "$bin/$b" ] || { echo "run_soak.sh: $bin/$b is missing" >&2; exit 2; }
done
seconds_of() {  # 90s, 10m, 1h -> seconds
  python3 -c "
import re, sys
m = re.fullmatch(r'(\d+)(ms|s|m|h)', sys.argv[1])
if not m: sys.exit('run_soak.sh: durations must be like 90s or 10m, not ' + sys.argv[1])
print(int(int(m.group(1)) * {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600}[m.group(2)]))" "$1"
}
seconds=$(seconds_of "$duration")
ramp=${RAMP:-$((seconds / 4))s}
ramp_s=$(seconds_of "$ramp")
drain_s=$(seconds_of "$drain")

work=$(mktemp -d /tmp/mamlaka-soak.XXXXXX)
chmod 755 "$work"
log_dir=$work
# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
declare -A metrics  # /metrics ports of the services that count their heap
sampler=""
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  [ -z "$sampler" ] || kill "$sampler" 2>/dev/null
  stack_stop
  "$root/scripts/pg.sh" stop "$work/pg" >/dev/null 2>&1
  if [ "$status" -eq 0 ] && [ "${KEEP_LOGS:-0}" != 1 ]; then rm -rf "$work"; else echo "run_soak.sh: logs kept in $work" >&2; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

url=$("$root/scripts/pg.sh" start "$work/pg" "$(free_port)")
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')

# Every table comes from the one matchmaking address: no per-address rate limit.
# /metrics on loopback for the services that count their heap (tcmalloc's).
for i in 1 2; do
  metrics[table-$i]=$(free_port)
  stack_start "table-$i" table-service --instance_id="soak-$i" --peer_rate=0 \
    --metrics_address="127.0.0.1:${metrics[table-$i]}"
done
metrics[ratings]=$(free_port)
stack_start ratings ratings-service --metrics_port="${metrics[ratings]}"
stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
  --bot_fill_wait=24h --db_connections=16

# Every 10 s, per service: seconds since the start, name, RSS KiB, heap in use KiB
# (tcmalloc's, where /metrics has it), tables hosted (table services), games under
# way (the soak tool's last progress line).
services=(table-1 table-2 ratings matchmaking)
sample() {  # NAME T
  local name=$1 rss heap="" hosted="" live text threads
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/${pid[$name]}/status" 2>/dev/null || echo 0)
  if [ -n "${metrics[$name]:-}" ]; then
    text=$(python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
      "http://127.0.0.1:${metrics[$name]}/metrics" 2>/dev/null || true)
    heap=$(awk '/^trix_heap_allocated_bytes / { printf "%d", $2 / 1024 }' <<<"$text")
    hosted=$(awk '/^trix_table_tables / { printf "%d", $2 }' <<<"$text")
    # tcmalloc's free caches (KiB) and the process's threads (each with a cache and
    # a stack), for reading the RSS against the heap in use.
    threads=$(awk '/^Threads:/ { print $2 }' "/proc/${pid[$name]}/status" 2>/dev/null || echo 0)
    awk -v t="$2" -v n="$name" -v threads="$threads" -F'[{}" ]+' \
      '/^trix_heap_free_bytes/ { f[$3] = int($4 / 1024) }
      END { printf "%s,%s,%d,%d,%d,%d,%d\n", t, n, f["pageheap"], f["central"], f["transfer"],
            f["thread"], threads }' <<<"$text" >>"$work/heap_free.csv"
  fi
  live=$(tail -n 1 "$work/soak.out" 2>/dev/null | grep -o 'live [0-9]*' | cut -d' ' -f2 || true)
  echo "$2,$name,$rss,$heap,$hosted,${live:-0}"
}
t0=$(date +%s)
: >"$work/soak.out"
(
  while :; do
    t=$(($(date +%s) - t0))
    for name in "${services[@]}"; do sample "$name" "$t"; done
    sleep 10
  done
) >"$work/samples.csv" &
sampler=$!

echo "run_soak.sh: $tables tables ($((4 * tables)) players) of $mode for $duration, arriving over $ramp, a turn every $think; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 20  # idle samples: the services before any load
soak_start=$(($(date +%s) - t0))
soak_status=0
"$bin/matchmaking-soak" --matchmaking="127.0.0.1:${port[matchmaking]}" \
  --service_token="$token" --tables="$tables" --duration="$duration" --think="$think" \
  --ramp="$ramp" --mode="$mode" 2>"$work/soak.err" | tee "$work/soak.out" || soak_status=$?
wound_down=$(($(date +%s) - t0))
echo "run_soak.sh: the games are over at t=${wound_down}s; sampling the memory given back for $drain"
sleep "$drain_s"
kill "$sampler" 2>/dev/null
sampler=""
t=$(($(date +%s) - t0))  # the last sample: after the drain, whatever the sampler's pace
for name in "${services[@]}"; do sample "$name" "$t"; done >>"$work/samples.csv"
head -n 10 "$work/soak.err" >&2

failed=0
verdict() {  # name, then the condition's command
  local name=$1
  shift
  if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failed=$((failed + 1)); fi
}
all_running() {
  local name ok=0
  for name in "${services[@]}"; do
    kill -0 "${pid[$name]}" 2>/dev/null || { echo "  $name is not running"; ok=1; }
  done
  return $ok
}
memory_steady() {
  python3 "$root/tests/soak/memory_verdict.py" "$work/samples.csv" \
    --steady_from=$((soak_start + ramp_s + steady_after)) --steady_to=$((soak_start + seconds)) \
    --drained_at=$((wound_down + drain_s)) --slope="$mem_slope" --drain="$drain_mb"
}
verdict "matchmaking-soak saw no error" [ "$soak_status" -eq 0 ]
verdict "every service still running" all_running
verdict "memory steady (growth beyond the tables <= $mem_slope MiB/h) and given back (<= idle + $drain_mb MiB)" memory_steady
# Its own PASS or FAIL line for each: the replay, the ratings service caught up
# with the last games (30 s at most), rated once, money moved once.
verdict "every finished game replayed, rated once and its money moved once" \
  "$bin/trix-end-checks" --database_url="$url" --replay_dir="$work/replay" --wait_rated=30s
[ "$failed" -eq 0 ]
