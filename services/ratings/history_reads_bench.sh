#!/usr/bin/env bash
# What a read replica takes off the primary: the same ratings load (ratings-load
# writing finished games at RATE a second and mixing in READS history reads a
# second over gRPC: GetLeaderboard, GetRatingHistory, GetStatement) run twice
# against one primary with a streaming standby (scripts/pg.sh start, standby),
# alternately with the ratings service reading everything from the primary and
# with --read_database_url on the standby (twice each); each run reports the CPU the primary's
# processes and the standby's used, in cores, over the whole run.
#
#   services/ratings/history_reads_bench.sh [GAMES] [RATE] [READS]   # 12000 100 300
#
# Needs build/bin/{ratings-service,ratings-load}. Data under /tmp; everything it
# started is stopped at exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
games=${1:-12000} rate=${2:-100} reads=${3:-300}
work=$(mktemp -d /tmp/history-reads-XXXXXX)
chmod 755 "$work"  # the servers run as postgres when we are root
service_pid=""
cleanup() {
  [ -z "$service_pid" ] || { kill -TERM "$service_pid" 2>/dev/null; wait "$service_pid" 2>/dev/null || true; }
  "$root/scripts/pg.sh" stop "$work/standby" >/dev/null 2>&1 || true
  "$root/scripts/pg.sh" stop "$work/primary" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

primary=$("$root/scripts/pg.sh" start "$work/primary")
standby=$("$root/scripts/pg.sh" standby "$work/standby" "$primary")
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')

# CPU seconds (user + system) of a server's postmaster and all its children.
server_cpu() {
  local postmaster
  postmaster=$(head -1 "$1/data/postmaster.pid")
  awk -v hz="$(getconf CLK_TCK)" '{ t += $14 + $15 } END { printf "%.2f", t / hz }' \
    "/proc/$postmaster/stat" $(pgrep -P "$postmaster" | sed 's|.*|/proc/&/stat|')
}

run() {  # $1: the run's name, then the ratings service's extra flags
  local name=$1; shift
  "$bin/ratings-service" --database_url="$primary" --listen=127.0.0.1:0 \
    --service_token="$token" --metrics_port=-1 --migrations_dir="$root/migrations" \
    --poll_interval=50ms "$@" >"$work/$name.log" 2>&1 &
  service_pid=$!
  local port=""
  for _ in $(seq 300); do
    port=$(sed -n '/"msg":"serving"/s/.*"port":\([0-9]*\).*/\1/p' "$work/$name.log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$work/$name.log" >&2; exit 1; }
  local p0 s0 t0 p1 s1 t1 out
  p0=$(server_cpu "$work/primary") s0=$(server_cpu "$work/standby") t0=$(date +%s.%N)
  out=$("$bin/ratings-load" --database_url="$primary" --games="$games" --rate="$rate" \
    --seed="$RANDOM" --read_target="127.0.0.1:$port" --read_token="$token" \
    --read_rate="$reads")
  p1=$(server_cpu "$work/primary") s1=$(server_cpu "$work/standby") t1=$(date +%s.%N)
  kill -TERM "$service_pid"; wait "$service_pid" || true; service_pid=""
  awk -v n="$name" -v p="$(echo "$p1 - $p0" | bc)" -v s="$(echo "$s1 - $s0" | bc)" \
      -v t="$(echo "$t1 - $t0" | bc)" -v out="$out" \
    'BEGIN { printf "%-8s %6.1f s  primary %.3f cores  standby %.3f cores  %s\n", n, t, p / t, s / t, out }'
}

# Alternated, so that both see the database as it grows.
for _ in 1 2; do
  run primary
  run replica --read_database_url="$standby"
done
