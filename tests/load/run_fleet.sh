#!/usr/bin/env bash
# Mass failover of the table service (docs/benchmarks.md, "Mass failover"): starts a
# throwaway PostgreSQL and table-service instances on loopback, runs
# build/bin/table-load with every table created on instance A, and mid-window has
# table-load itself fail A (--fleet_kill_pid: the failure instant is its own
# clock's). table-load then times each table's way back into play (the first
# accepted action after the failure: p50 / p99 / max), fails the run if any table
# is not back within the bound or any acknowledged action is missing from its
# game's record, and this script checks the database holds every acknowledged
# action. The scenarios:
#   kill     A is killed with SIGKILL; B, running with room, takes the tables once
#            their leases lapse (bound: LEASE_TTL + 5 s)
#   restart  A alone, killed with SIGKILL and started again at once under the same
#            --instance_id: it takes its own tables back before it reports SERVING
#            (bound: LEASE_TTL + 5 s)
#   drain    A gets SIGTERM (a rolling update): it hands its tables over and B
#            takes them (bound: 2 s)
#
#   scripts/build.sh
#   tests/load/run_fleet.sh --fleet=kill --tables=1000 --rate=1000
#   LEASE_TTL=5 SERVICE_FLAGS=--claim_batch=1000 tests/load/run_fleet.sh --fleet=kill
#
# Other arguments go to table-load (table-load --help). Environment: LEASE_TTL
# (seconds, 15), KILL_AFTER (seconds into the window, 20), BOUND (seconds, as
# above), SERVICE_FLAGS (more table-service flags, for every instance),
# PG_PORT, SERVICE_PORT, METRICS_PORT (A's; B's are the next ones; by default
# each picked free by the server that binds it), KEEP_LOGS=1, TABLE_SERVICE, TABLE_LOAD (as run_load.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

scenario=""
load_args=()
for arg in "$@"; do
  case "$arg" in
    --fleet=*) scenario=${arg#--fleet=} ;;
    *) load_args+=("$arg") ;;
  esac
done
case "$scenario" in
  kill | restart) signal=KILL bound=${BOUND:-$(( ${LEASE_TTL:-15} + 5 ))} ;;
  drain) signal=TERM bound=${BOUND:-2} ;;
  *) echo "run_fleet.sh: --fleet=kill, --fleet=restart or --fleet=drain is required" >&2
     exit 2 ;;
esac
lease=${LEASE_TTL:-15}
kill_after=${KILL_AFTER:-20}

# Ports 0: the kernel picks (load_start_service reads back what each bound).
pg_port=${PG_PORT:-}
a_port=${SERVICE_PORT:-0}
b_port=$(( a_port == 0 ? 0 : a_port + 1 ))
a_metrics=${METRICS_PORT:-0}
b_metrics=$(( a_metrics == 0 ? 0 : a_metrics + 1 ))
# shellcheck source=tests/load/services.sh
. tests/load/services.sh
load_begin

load_start_database
instance() {  # name port metrics
  # shellcheck disable=SC2086  # SERVICE_FLAGS is a list of flags
  load_start_service "$1" "$2" "$3" --lease_ttl="${lease}s" ${SERVICE_FLAGS:-}
}
instance fleet-a "$a_port" "$a_metrics"
a_pid=$service_pid
a_port=$service_port  # a restart comes back on the same ports
a_metrics=$service_metrics_port
targets="127.0.0.1:$a_port"
watch_pids="postgres=$postmaster"
if [ "$scenario" != restart ]; then
  instance fleet-b "$b_port" "$b_metrics"
  b_port=$service_port
  b_metrics=$service_metrics_port
  targets+=",127.0.0.1:$b_port"
  watch_pids="table-service-b=$service_pid,$watch_pids"
  metrics="--metrics=127.0.0.1:$b_metrics"
else
  metrics=""
fi
echo "run_fleet.sh: $scenario: PostgreSQL pid $postmaster, A pid $a_pid ($targets)," \
  "lease ${lease} s, SIG$signal ${kill_after} s into the window, bound ${bound} s" >&2

commits_before=$(load_commits)
MAMLAKA_SERVICE_TOKEN=$token "$table_load" \
  --target="$targets" --create_targets=1 $metrics --cpu_pids="$watch_pids" \
  --tables=1000 --rate=1000 --warmup=5s --duration="$(( kill_after + bound + 5 ))s" \
  --target_rate=0 --target_p99_ms=100000 \
  --fleet_kill_pid="$a_pid" --fleet_kill_after="${kill_after}s" \
  --fleet_signal="$signal" --fleet_bound="${bound}s" \
  "${load_args[@]}" >"$dir/result.txt" &
load_pid=$!

# A's end: at once after SIGKILL, after its drain after SIGTERM.
status=0
wait "$a_pid" 2>/dev/null || true
ended=$(date +%s.%N)
if [ "$scenario" = restart ]; then
  instance fleet-a "$a_port" "$a_metrics"
  echo "run_fleet.sh: A serving again $(printf %.2f "$(echo "$(date +%s.%N) - $ended" | bc)") s after it" \
    "died, with $(grep '"msg":"serving"' "$dir/fleet-a.log" | tail -1 |
    grep -o '"tables":[0-9]*' | cut -d: -f2) tables" >&2
fi
wait "$load_pid" || status=$?
cat "$dir/result.txt"

# When A's leases lapsed: its last renewal (the registry's heartbeat is written in
# the same maintenance round) plus the lease, from the failure.
at_ms=$(tail -1 "$dir/result.txt" | grep -o '"at_unix_ms":[0-9]*' | cut -d: -f2 || true)
if [ "$scenario" = kill ] && [ -n "$at_ms" ]; then
  psql "$url" -tAc "SELECT 'run_fleet.sh: A last renewed its leases ' ||
      round((($at_ms / 1000.0) - extract(epoch FROM max(heartbeat)))::numeric, 2) ||
      ' s before the failure: they lapsed ' ||
      round((extract(epoch FROM max(heartbeat)) + $lease - $at_ms / 1000.0)::numeric, 2) ||
      ' s after it'
    FROM table_instances WHERE instance_id LIKE 'fleet-a#%' AND started <
      to_timestamp($at_ms / 1000.0)"
fi
if [ "$scenario" != restart ]; then
  python3 - "$b_metrics" <<'PY' || true
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
for line in text.splitlines():
    if line.startswith(("trix_table_recovered_total", "trix_table_tables ")):
        print("run_fleet.sh: B:", line)
PY
fi
load_check_database "$dir/result.txt" "$commits_before" || status=1
exit "$status"
