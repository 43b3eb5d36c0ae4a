#!/usr/bin/env bash
# table-load follows moved tables (CTest: table_load_fleet_test). Two real
# table-service instances, A and B, share one PostgreSQL server of the test's own;
# build/bin/table-load plays tables created on both (--target=A,B); mid-run A is
# killed with SIGKILL. Passes when:
#   - table-load exits 0: every table started, and every action it saw
#     acknowledged is in its game's record (durability check, through B);
#   - no seat gave up (stream_errors 0), seats reopened their streams, and some
#     actions were acknowledged after a reopen (followed_acks > 0);
#   - the database holds at least as many client actions as were acknowledged;
#   - every game A was playing when it died is now leased to B (or finished),
#     and its log grew after the kill: its seats went on playing there.
# About 30 seconds. Needs build/bin/{table-service,table-load}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
lease=2s

work=$(mktemp -d /tmp/mamlaka-load-fleet.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  local status=$?
  trap - EXIT
  for p in "${pids[@]}"; do
    kill -TERM "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  "$root/scripts/pg.sh" stop "$work/pg" >/dev/null 2>&1 || true
  if [ "$status" -eq 0 ] && [ "${KEEP_LOGS:-0}" != 1 ]; then
    rm -rf "$work"
  else
    echo "table_load_fleet_test: logs kept in $work" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
fail() {
  echo "table_load_fleet_test: FAILED: $*" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; tail -15 "$f" >&2; done
  exit 1
}

url=$("$root/scripts/pg.sh" start "$work/pg")
psql_() { /usr/lib/postgresql/15/bin/psql "$url" -v ON_ERROR_STOP=1 -tAc "$1"; }
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')

start_instance() {  # name; sets the global pid of the last one started
  MAMLAKA_DATABASE_URL=$url MAMLAKA_SERVICE_TOKEN=$token "$bin/table-service" \
    --listen=127.0.0.1:0 --port_file="$work/$1.port" --instance_id="$1" \
    --migrations_dir="$root/migrations" --metrics_port=-1 --lease_ttl=$lease \
    --peer_rate=0 --default_contract_ms=3600000 --default_doubling_ms=3600000 \
    --default_card_ms=3600000 >"$work/$1.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do
    grep -q '"msg":"serving"' "$work/$1.log" && [ -s "$work/$1.port" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "table-service $1 exited"
    sleep 0.1
  done
  fail "table-service $1 is not serving"
}
start_instance fleet-load-a
a_pid=$pid
start_instance fleet-load-b
a="127.0.0.1:$(cat "$work/fleet-load-a.port")"
b="127.0.0.1:$(cat "$work/fleet-load-b.port")"

MAMLAKA_SERVICE_TOKEN=$token "$bin/table-load" --target="$a,$b" --tables=8 \
  --channels=1 --rate=120 --warmup=1s --duration=16s --drain=15s \
  --target_rate=0 --target_p99_ms=100000 >"$work/result.txt" 2>"$work/table-load.log" &
load_pid=$!
pids+=("$load_pid")

# Mid-run: A's unfinished games and their log lengths, then A dies.
sleep 6
on_a="SELECT id || ' ' || log_length FROM games WHERE finished IS NULL AND lease_owner LIKE 'fleet-load-a#%' ORDER BY id"
psql_ "$on_a" >"$work/on_a.txt"
kill -KILL "$a_pid"
wait "$a_pid" 2>/dev/null || true
[ -s "$work/on_a.txt" ] || fail "A hosted no game when it was killed"

status=0
wait "$load_pid" || status=$?
cat "$work/result.txt"
[ "$status" -eq 0 ] || fail "table-load exited $status"
json=$(tail -1 "$work/result.txt")
field() { echo "$json" | grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; }
[ "$(field stream_errors)" = 0 ] || fail "some seats gave up: $json"
[ "$(field reconnects)" -gt 0 ] || fail "no seat reopened its stream"
[ "$(field followed_acks)" -gt 0 ] || fail "nothing was acknowledged after a reopen"

acks=$(field acks_total)
rows=$(psql_ "SELECT count(*) FROM game_log WHERE seat >= 0 AND request_id <> ''")
[ "$rows" -ge "$acks" ] || fail "$rows client actions logged, $acks acknowledged"

while read -r id length; do
  row=$(psql_ "SELECT (finished IS NOT NULL OR lease_owner LIKE 'fleet-load-b#%') || ' ' || log_length FROM games WHERE id = '$id'")
  [ "${row%% *}" = true ] || fail "game $id is not on B: $(psql_ "SELECT lease_owner FROM games WHERE id = '$id'")"
  [ "${row##* }" -gt "$length" ] || fail "game $id did not go on after A died (log $length -> ${row##* })"
done <"$work/on_a.txt"
echo "table_load_fleet_test: $(wc -l <"$work/on_a.txt") games moved from A to B; $acks actions acknowledged, $rows logged"
