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
#   PG_PORT, SERVICE_PORT, METRICS_PORT: loopback ports (by default each picked
#   free by the server that binds it, so runs side by side never clash);
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

pg_port=${PG_PORT:-}
# shellcheck source=tests/load/services.sh
. tests/load/services.sh
load_begin
load_start_database
# shellcheck disable=SC2086  # SERVICE_FLAGS is a list of flags
load_start_service load "${SERVICE_PORT:-0}" "${METRICS_PORT:-0}" ${SERVICE_FLAGS:-}

echo "run_load.sh: PostgreSQL pid $postmaster, table-service pid $service_pid, $(nproc) cores" >&2
commits_before=$(load_commits)
status=0
MAMLAKA_SERVICE_TOKEN=$token "$table_load" \
  --target="127.0.0.1:$service_port" \
  --metrics="127.0.0.1:$service_metrics_port" \
  --cpu_pids="table-service=$service_pid,$cpu_pids" \
  "$@" | tee "$dir/result.txt" || status=$?

load_check_database "$dir/result.txt" "$commits_before" || status=1
exit "$status"
