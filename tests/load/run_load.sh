#!/usr/bin/env bash
# Load test of the table service (docs/benchmarks.md, "Table service"): starts a
# throwaway PostgreSQL (scripts/pg.sh) and one build/bin/table-service on loopback,
# runs build/bin/table-load against them, checks the database holds every action the
# tool saw acknowledged, and stops everything on exit (also on Ctrl-C or failure).
#
#   scripts/build.sh
#   tests/load/run_load.sh                          # 1000 tables, 10 s warm-up, 30 s
#   tests/load/run_load.sh --tables=100 --duration=20s --mode=complex-partner
#
# Arguments go to table-load (table-load --help lists them). Environment:
#   PG_PORT (55470), SERVICE_PORT (50090), METRICS_PORT (9490): loopback ports;
#   SERVICE_FLAGS: extra table-service flags, e.g. "--workers=1 --db_connections=2";
#   KEEP_LOGS=1: keep the service and PostgreSQL logs (their folder is printed);
#   TABLE_SERVICE, TABLE_LOAD: other binaries than build/bin's;
#   PG_HA=sync or async: a replicated PostgreSQL instead (scripts/pg-ha.sh: three
#   Patroni-managed servers), its primary's and standbys' CPU reported apart.
#
# The three processes share the machine's cores, so anything else running (a
# build) lowers the figures: the script warns when the machine is busy before it
# starts, and table-load's "cpu other" line says how much the rest took.
#
# The service runs as in production (fsync and synchronous commit on, every action
# durable before it is answered) except that the per-address rate limit is off
# (every table-load call comes from 127.0.0.1) and the default clocks are an hour,
# so the autopilot never acts; table-load also asks for hour-long clocks.
set -euo pipefail
cd "$(dirname "$0")/../.."

pg_port=${PG_PORT:-55470}
service_port=${SERVICE_PORT:-50090}
metrics_port=${METRICS_PORT:-9490}
table_service=${TABLE_SERVICE:-build/bin/table-service}
table_load=${TABLE_LOAD:-build/bin/table-load}
for bin in "$table_service" "$table_load"; do
  if [ ! -x "$bin" ]; then
    echo "run_load.sh: $bin is missing; run scripts/build.sh" >&2
    exit 2
  fi
done

dir=$(mktemp -d)
chmod 755 "$dir"
service_pid=""
cleanup() {
  set +e
  if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then
    kill -TERM "$service_pid"  # drains: streams end, leases are released
    for _ in $(seq 1 200); do
      kill -0 "$service_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$service_pid" 2>/dev/null
    wait "$service_pid" 2>/dev/null
  fi
  scripts/pg.sh stop "$dir"
  [ -z "${PG_HA:-}" ] || scripts/pg-ha.sh stop "$dir/ha"
  if [ "${KEEP_LOGS:-0}" = 1 ]; then
    echo "run_load.sh: logs kept in $dir" >&2
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Busy share of all cores over a second, from /proc/stat.
busy_percent() {
  local a b
  read -r -a a < <(head -1 /proc/stat)
  sleep 1
  read -r -a b < <(head -1 /proc/stat)
  local busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
  local idle=$(( (b[4]+b[5]) - (a[4]+a[5]) ))
  echo $(( 100 * busy / (busy + idle + 1) ))
}
busy=$(busy_percent)
if [ "$busy" -gt 10 ]; then
  echo "run_load.sh: warning: the machine is already ${busy}% busy; the figures will be low" >&2
fi

if [ -n "${PG_HA:-}" ]; then
  url=$(scripts/pg-ha.sh start "$dir/ha" "$PG_HA")
  primary=$(scripts/pg-ha.sh primary "$dir/ha")
  postmaster=$(scripts/pg-ha.sh pid "$dir/ha" "$primary" postgres)
  cpu_pids="postgres=$postmaster"
  for node in pg0 pg1 pg2; do
    [ "$node" = "$primary" ] ||
      cpu_pids+=",standby-$node=$(scripts/pg-ha.sh pid "$dir/ha" "$node" postgres)"
  done
  for node in pg0 pg1 pg2; do
    cpu_pids+=",patroni-$node=$(scripts/pg-ha.sh pid "$dir/ha" "$node" patroni)"
  done
else
  url=$(scripts/pg.sh start "$dir" "$pg_port")
  postmaster=$(head -1 "$dir/data/postmaster.pid")
  cpu_pids="postgres=$postmaster"
fi
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')

# shellcheck disable=SC2086  # SERVICE_FLAGS is a list of flags
"$table_service" \
  --listen="127.0.0.1:$service_port" \
  --metrics_port="$metrics_port" \
  --database_url="$url" \
  --service_token="$token" \
  --migrations_dir=migrations \
  --instance_id=load \
  --peer_rate=0 \
  --default_contract_ms=3600000 --default_doubling_ms=3600000 --default_card_ms=3600000 \
  --log_level=info \
  ${SERVICE_FLAGS:-} >"$dir/service.log" 2>&1 &
service_pid=$!

# SERVING once migrations are applied; the log says so.
for _ in $(seq 1 300); do
  grep -q '"msg":"serving"' "$dir/service.log" && break
  if ! kill -0 "$service_pid" 2>/dev/null; then
    echo "run_load.sh: table-service exited:" >&2
    tail -20 "$dir/service.log" >&2
    exit 1
  fi
  sleep 0.1
done
grep -q '"msg":"serving"' "$dir/service.log" || { echo "run_load.sh: service not serving" >&2; exit 1; }

echo "run_load.sh: PostgreSQL pid $postmaster, table-service pid $service_pid, $(nproc) cores" >&2
commits() {
  psql "$url" -tAc "SELECT xact_commit FROM pg_stat_database WHERE datname = 'mamlaka'"
}
commits_before=$(commits)
status=0
MAMLAKA_SERVICE_TOKEN=$token "$table_load" \
  --target="127.0.0.1:$service_port" \
  --metrics="127.0.0.1:$metrics_port" \
  --cpu_pids="table-service=$service_pid,$cpu_pids" \
  "$@" | tee "$dir/result.txt" || status=$?

# The database's own count: every client action the tool saw acknowledged must be a
# row of game_log (the database is fresh, so every row is this run's).
acks=$(tail -1 "$dir/result.txt" | grep -o '"acks_total":[0-9]*' | cut -d: -f2 || true)
rows=$(psql "$url" -tAc "SELECT count(*) FROM game_log WHERE seat >= 0 AND request_id <> ''")
entries=$(psql "$url" -tAc "SELECT count(*) FROM game_log")
transactions=$(( $(commits) - commits_before ))
echo "run_load.sh: database: $rows client actions logged (table-load saw ${acks:-?}" \
  "acknowledged), $entries log entries in all, $transactions transactions committed" \
  "($(( entries / (transactions + 1) )) log entries per transaction)"
if [ -n "$acks" ] && [ "$rows" -lt "$acks" ]; then
  echo "run_load.sh: FEWER actions in the database than were acknowledged" >&2
  status=1
fi
exit "$status"
