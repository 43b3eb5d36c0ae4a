#!/usr/bin/env bash
# Soak run of the whole deployment (docs/benchmarks.md, "Soak"): a throwaway
# PostgreSQL, two table-service instances, the ratings service and the matchmaking
# service, all on loopback with kernel-chosen ports, and build/bin/matchmaking-soak
# keeping TABLES tables of people playing through matchmaking at human pace: 4 x
# TABLES players queue, play the seat they are given (their table takes a turn
# every THINK, ±50%), and queue again when their game is over. No bot accounts:
# tables are people only (matchmaking's bot fill wait is longer than the run).
#
#   tests/soak/run_soak.sh                              # 1000 tables, 10 minutes
#   TABLES=50 DURATION=1m THINK=50ms tests/soak/run_soak.sh   # a short check
#
# Every 10 s the resident memory (RSS) of every service process is sampled into
# rss.csv. The run passes when matchmaking-soak saw no error (every queue got a
# seat; no stream broke; no action was refused or lost; no event number skipped),
# every service is still running, the memory of every service is flat — the mean
# RSS of the last minute is at most MEM_PCT % (10) plus MEM_MB MiB (32) above the
# mean of the first minute after a warm-up of a minute (runs shorter than five
# minutes compare the second fifth of the run with the last fifth, the first fifth
# being the warm-up) — and the checks of tests/fault/end_checks.sh hold for every
# game that finished: its stored log replays through trix-replay's engine to its
# recorded result, and it was rated and its money moved exactly once.
#
# Environment: TABLES (1000), DURATION (10m), THINK (1s), MODE (complex-solo),
# MEM_PCT, MEM_MB, KEEP_LOGS=1 keeps the folder with the logs, rss.csv and the
# replayed games. Needs build/bin/{table-service,ratings-service,
# matchmaking-service,matchmaking-soak,trix-game-cases,trix-replay,
# trix-conformance-compare}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
tables=${TABLES:-1000}
duration=${DURATION:-10m}
think=${THINK:-1s}
mode=${MODE:-complex-solo}
mem_pct=${MEM_PCT:-10}
mem_mb=${MEM_MB:-32}
for b in table-service ratings-service matchmaking-service matchmaking-soak trix-game-cases \
  trix-replay trix-conformance-compare; do
  [ -x "$bin/$b" ] || { echo "run_soak.sh: $bin/$b is missing" >&2; exit 2; }
done
seconds=$(python3 -c "
import re, sys
m = re.fullmatch(r'(\d+)(ms|s|m|h)', sys.argv[1])
if not m: sys.exit('run_soak.sh: DURATION must be like 90s or 10m')
print(int(m.group(1)) * {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600}[m.group(2)])" "$duration")

work=$(mktemp -d /tmp/mamlaka-soak.XXXXXX)
chmod 755 "$work"
log_dir=$work
# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
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
# shellcheck source=tests/fault/end_checks.sh
. "$root/tests/fault/end_checks.sh"

# Every table comes from the one matchmaking address: no per-address rate limit.
for i in 1 2; do
  stack_start "table-$i" table-service --instance_id="soak-$i" --peer_rate=0
done
stack_start ratings ratings-service
stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
  --bot_fill_wait=24h --db_connections=16
since=$(psql_ "SELECT now() - interval '1 minute'")

# RSS of every service, every 10 s: seconds since the start, name, KiB.
services=(table-1 table-2 ratings matchmaking)
(
  t0=$(date +%s)
  while :; do
    for name in "${services[@]}"; do
      kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/${pid[$name]}/status" 2>/dev/null || echo 0)
      echo "$(($(date +%s) - t0)),$name,$kib"
    done
    sleep 10
  done
) >"$work/rss.csv" &
sampler=$!

echo "run_soak.sh: $tables tables ($((4 * tables)) players) of $mode for $duration, a turn every $think; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
soak_status=0
"$bin/matchmaking-soak" --matchmaking="127.0.0.1:${port[matchmaking]}" \
  --service_token="$token" --tables="$tables" --duration="$duration" --think="$think" \
  --mode="$mode" 2>"$work/soak.err" | tee "$work/soak.out" || soak_status=$?
kill "$sampler" 2>/dev/null
sampler=""
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
memory_flat() {
  python3 - "$work/rss.csv" "$seconds" "$mem_pct" "$mem_mb" <<'PY'
import collections, sys
path, total, pct, mb = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
window = 60.0 if total >= 300 else total / 5
first_from = window  # after the warm-up
last_from = total - window
samples = collections.defaultdict(list)
for line in open(path):
    t, name, kib = line.strip().split(",")
    samples[name].append((float(t), int(kib) / 1024))
ok = True
for name, rows in samples.items():
    first = [m for t, m in rows if first_from <= t < first_from + window]
    last = [m for t, m in rows if last_from <= t <= total]
    if not first or not last:
        print(f"  {name}: too few samples"); ok = False; continue
    a, b = sum(first) / len(first), sum(last) / len(last)
    bound = a * (1 + pct / 100) + mb
    flat = b <= bound
    ok = ok and flat
    print(f"  {name:12s} RSS {a:8.1f} MiB -> {b:8.1f} MiB (peak {max(m for _, m in rows):.1f}; "
          f"bound {bound:.1f}) {'flat' if flat else 'GREW'}")
sys.exit(0 if ok else 1)
PY
}
verdict "matchmaking-soak saw no error" [ "$soak_status" -eq 0 ]
verdict "every service still running" all_running
verdict "memory of every service flat (last vs first minute: +$mem_pct% + $mem_mb MiB at most)" memory_flat
verdict "every finished game's log replays to its recorded result" games_replay "$work/replay"
for _ in $(seq 1 300); do  # the ratings service catches up with the last games
  [ "$(psql_ "SELECT count(*) FROM game_results WHERE consumed_at IS NULL")" -eq 0 ] && break
  sleep 0.1
done
verdict "every finished game rated once" rated_once
verdict "every finished game's money moved once" ledger_once
[ "$failed" -eq 0 ]
