# What the load scripts share (sourced by run_load.sh and run_fleet.sh): a throwaway
# PostgreSQL, table-service instances on loopback started and stopped the same way,
# and the database's count of what table-load saw acknowledged. Callers set
# pg_port; the functions set table_service, table_load, dir (the run's folder), url,
# postmaster, cpu_pids, token and service_pid.

load_services=()  # every table-service pid started, stopped by load_stop_all

# The binaries (TABLE_SERVICE, TABLE_LOAD: others than build/bin's), the run's
# folder, and everything stopped on exit; warns when the machine is busy.
load_begin() {
  table_service=${TABLE_SERVICE:-build/bin/table-service}
  table_load=${TABLE_LOAD:-build/bin/table-load}
  local bin
  for bin in "$table_service" "$table_load"; do
    if [ ! -x "$bin" ]; then
      echo "$0: $bin is missing; run scripts/build.sh" >&2
      exit 2
    fi
  done
  dir=$(mktemp -d)
  chmod 755 "$dir"
  trap load_stop_all EXIT
  trap 'exit 130' INT TERM
  load_warn_if_busy
}

# Warns when the machine is already busy (over 10% of all cores for a second, from
# /proc/stat): the figures will be low.
load_warn_if_busy() {
  local a b
  read -r -a a < <(head -1 /proc/stat)
  sleep 1
  read -r -a b < <(head -1 /proc/stat)
  local busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
  local idle=$(( (b[4]+b[5]) - (a[4]+a[5]) ))
  busy=$(( 100 * busy / (busy + idle + 1) ))
  if [ "$busy" -gt 10 ]; then
    echo "$0: warning: the machine is already ${busy}% busy; the figures will be low" >&2
  fi
}

# A throwaway PostgreSQL (or, with PG_HA=sync|async, a replicated one).
load_start_database() {
  if [ -n "${PG_HA:-}" ]; then
    url=$(scripts/pg-ha.sh start "$dir/ha" "$PG_HA")
    local primary node
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
}

# load_start_service NAME PORT METRICS_PORT [FLAG...]: table-service instance NAME
# on 127.0.0.1:PORT, as in production except that the per-address rate limit is
# off (every table-load call comes from 127.0.0.1), so is the cap on one
# connection's streams (table-load puts thousands of seats on each channel), and
# the default clocks are an hour (the autopilot never acts). Port 0 (either): the kernel picks a free one,
# so two runs never race for a port. Returns once it says it is serving (its log:
# $dir/NAME.log, appended to by a restart); sets service_pid, and service_port
# and service_metrics_port to the ports it bound.
load_start_service() {
  local name=$1 port=$2 metrics=$3
  shift 3
  local log="$dir/$name.log" served
  served=$(grep -c '"msg":"serving"' "$log" 2>/dev/null || true)
  rm -f "$dir/$name.port"
  "$table_service" \
    --listen="127.0.0.1:$port" \
    --port_file="$dir/$name.port" \
    --metrics_address="127.0.0.1:$metrics" \
    --database_url="$url" \
    --service_token="$token" \
    --migrations_dir=migrations \
    --instance_id="$name" \
    --peer_rate=0 --max_streams_per_connection=0 \
    --default_contract_ms=3600000 --default_doubling_ms=3600000 --default_card_ms=3600000 \
    --log_level=info \
    "$@" >>"$log" 2>&1 &
  service_pid=$!
  load_services+=("$service_pid")
  for _ in $(seq 1 600); do
    if [ "$(grep -c '"msg":"serving"' "$log" || true)" -gt "${served:-0}" ]; then
      service_port=$(cat "$dir/$name.port")
      service_metrics_port=$(grep '"msg":"serving metrics"' "$log" | tail -1 |
        grep -o '"port":[0-9]*' | cut -d: -f2)
      return 0
    fi
    if ! kill -0 "$service_pid" 2>/dev/null; then
      echo "$0: table-service $name exited:" >&2
      tail -20 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "$0: table-service $name is not serving" >&2
  return 1
}

# Drains an instance (SIGTERM: streams end, leases are released); SIGKILL after 20 s.
load_stop_service() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
  kill -TERM "$pid"
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# Every instance started, then the database; the logs kept with KEEP_LOGS=1.
load_stop_all() {
  set +e
  local pid
  for pid in "${load_services[@]}"; do load_stop_service "$pid"; done
  scripts/pg.sh stop "$dir"
  [ -z "${PG_HA:-}" ] || scripts/pg-ha.sh stop "$dir/ha"
  if [ "${KEEP_LOGS:-0}" = 1 ]; then
    echo "$0: logs kept in $dir" >&2
  else
    rm -rf "$dir"
  fi
}

load_commits() {
  psql "$url" -tAc "SELECT xact_commit FROM pg_stat_database WHERE datname = 'mamlaka'"
}

# load_check_database RESULT COMMITS_BEFORE: every client action table-load saw
# acknowledged (the last line of RESULT) must be a row of game_log (the database
# is fresh, so every row is this run's). Non-zero when some are missing.
load_check_database() {
  local result=$1 commits_before=$2 acks rows entries transactions
  acks=$(tail -1 "$result" | grep -o '"acks_total":[0-9]*' | cut -d: -f2 || true)
  rows=$(psql "$url" -tAc "SELECT count(*) FROM game_log WHERE seat >= 0 AND request_id <> ''")
  entries=$(psql "$url" -tAc "SELECT count(*) FROM game_log")
  transactions=$(( $(load_commits) - commits_before ))
  echo "$0: database: $rows client actions logged (table-load saw ${acks:-?}" \
    "acknowledged), $entries log entries in all, $transactions transactions committed" \
    "($(( entries / (transactions + 1) )) log entries per transaction)"
  if [ -n "$acks" ] && [ "$rows" -lt "$acks" ]; then
    echo "$0: FEWER actions in the database than were acknowledged" >&2
    return 1
  fi
}
