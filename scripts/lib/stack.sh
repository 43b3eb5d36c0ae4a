# The services of a local deployment as child processes of a shell script: start
# one with the deployment's secrets in its environment (not on its command line,
# which ps shows) on a loopback port the kernel picks, wait for its "serving" line,
# show the end of its log when it exits instead, and stop them all. Sourced by
# scripts/run-local.sh, scripts/service-match.sh and tests/soak/run_soak.sh.
#
# The script sets `root` (the checkout, for migrations/), `bin` (the binaries),
# `log_dir` (where each service's log goes, as NAME.log), `url` (the database) and
# `token` (the operator's service token, every scope; matchmaking gets a
# credential of its own with only its scopes, in $log_dir), then:
#
#   stack_start table-1 table-service --instance_id=local-1  # waits until it serves
#   echo "table-1 is pid ${pid[table-1]} on port ${port[table-1]}"
#   kill -KILL "${pid[table-1]}"
#   stack_start table-1 table-service --instance_id=local-1  # the same port again
#   stack_adopt trix-demo $!  # a client of the stack, stopped with it
#   stack_stop                # in the EXIT trap: the last started first
#
# or, for the whole local deployment: stack_deployment local --bot_fill_wait=2s
#
# A test's stack in a scratch folder of its own, with a PostgreSQL server of its own:
#
#   stack_workdir fault   # $work (/tmp/mamlaka-fault.XXXXXX), also $log_dir
#   cleanup() { local status=$?; trap - EXIT; ...; stack_teardown "$status"; exit "$status"; }
#   trap cleanup EXIT
#   stack_postgres        # $url, on port $pg_port, data in $work/pg

# shellcheck shell=bash disable=SC2154  # the variables above are the script's
declare -A pid port
stack_names=()  # in the order of their first start

# A port that was free a moment ago, for the programs that need a number before
# they start (PostgreSQL); the services take the kernel's port 0 instead.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# stack_adopt NAME PID: stack_stop stops PID too.
stack_adopt() {
  pid[$1]=$2
  [[ " ${stack_names[*]} " == *" $1 "* ]] || stack_names+=("$1")
}

# The stack's service credentials (docs/operations.md, "Service credentials and
# their scopes"), in $log_dir once: "operator" is $token with every scope, which
# the scripts' clients present; "matchmaking" has only what matchmaking asks of
# the ratings service, its token in $log_dir/matchmaking-token, and
# "matchmaking-tables" only what it asks of the table instances, its token in
# $log_dir/matchmaking-table-token; matchmaking's seat token key is
# $log_dir/seat-token-key. Made anew by each script (its $token is).
stack_credentials_made=
stack_credentials() {
  [ -n "$stack_credentials_made" ] && return 0
  stack_credentials_made=1
  local mm_token mm_table_token
  mm_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
  mm_table_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
  (umask 077 && printf '%s\n' "$mm_token" >"$log_dir/matchmaking-token" &&
    printf '%s\n' "$mm_table_token" >"$log_dir/matchmaking-table-token" &&
    head -c 32 /dev/urandom | base64 >"$log_dir/seat-token-key")
  python3 - "$token" "$mm_token" "$mm_table_token" >"$log_dir/credentials.json" <<'PY'
import hashlib, json, sys
def entry(name, token, scopes):
    return {"name": name, "sha256": hashlib.sha256(token.encode()).hexdigest(), "scopes": scopes}
every = ["tables:create", "tables:void", "tables:read", "ledger:write", "ledger:hold",
         "ledger:read", "ratings:read", "bots:admin", "matchmaking:play"]
print(json.dumps({"credentials": [
    entry("operator", sys.argv[1], every),
    entry("matchmaking", sys.argv[2], ["ledger:hold", "ratings:read"]),
    entry("matchmaking-tables", sys.argv[3], ["tables:create", "tables:void"])]}))
PY
}

# stack_start NAME BINARY FLAGS...: starts $bin/BINARY listening on 127.0.0.1
# (the port of its last start, else one the kernel picks), appending its output to
# $log_dir/NAME.log, and waits up to 60 s for a new "serving" line there, which
# gives ${port[NAME]}. Returns 1, with the end of the log on stderr, when the
# service exits or does not serve in time.
stack_start() {
  local name=$1 binary=$2 log=$log_dir/$1.log before
  shift 2
  before=$(grep -c '"msg":"serving"' "$log" 2>/dev/null || true)
  stack_credentials
  MAMLAKA_DATABASE_URL=$url MAMLAKA_SERVICE_CREDENTIALS=$log_dir/credentials.json \
    MAMLAKA_CREDENTIAL_FILE=$log_dir/matchmaking-token \
    MAMLAKA_TABLE_CREDENTIAL_FILE=$log_dir/matchmaking-table-token \
    MAMLAKA_SEAT_TOKEN_KEY_FILE=$log_dir/seat-token-key \
    "$bin/$binary" --listen="127.0.0.1:${port[$name]:-0}" \
    --migrations_dir="$root/migrations" --metrics_port=-1 "$@" >>"$log" 2>&1 &
  stack_adopt "$name" $!
  for _ in $(seq 1 600); do
    if [ "$(grep -c '"msg":"serving"' "$log" 2>/dev/null || true)" -gt "${before:-0}" ]; then
      port[$name]=$(grep '"msg":"serving"' "$log" | tail -n 1 | grep -o '"port":[0-9]*' | cut -d: -f2)
      return 0
    fi
    if ! kill -0 "${pid[$name]}" 2>/dev/null; then
      echo "${0##*/}: $name exited; the end of its log:" >&2
      tail -n 40 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "${0##*/}: $name is not serving after 60 s; the end of its log:" >&2
  tail -n 20 "$log" >&2
  return 1
}

# stack_deployment ID MATCHMAKING_FLAGS...: the local deployment on $url: two
# table-service instances (instance ids ID-1 and ID-2, on one database: each
# registers itself, and matchmaking places every new table on the least loaded
# one), the ratings service and the matchmaking service using it, named
# table-service-1, table-service-2, ratings-service and matchmaking-service.
stack_deployment() {
  local id=$1 i
  shift
  for i in 1 2; do
    stack_start "table-service-$i" table-service --instance_id="$id-$i" \
      --peer_rate=100000 --peer_burst=100000 || return 1
  done
  stack_start ratings-service ratings-service || return 1
  stack_start matchmaking-service matchmaking-service \
    --ratings_address="127.0.0.1:${port[ratings-service]}" "$@"
}

# Stops every process started or adopted, the last first: SIGCONT (a stopped
# process could not drain), SIGTERM (each drains, then exits), and waits for it.
stack_stop() {
  local i p
  for ((i = ${#stack_names[@]} - 1; i >= 0; i--)); do
    p=${pid[${stack_names[i]}]:-}
    [ -n "$p" ] || continue
    kill -CONT "$p" 2>/dev/null || true
    kill -TERM "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}

# stack_workdir NAME: $work, a fresh folder /tmp/mamlaka-NAME.XXXXXX that the
# postgres user can enter, and $log_dir, the same folder.
stack_workdir() {
  work=$(mktemp -d "/tmp/mamlaka-$1.XXXXXX")
  chmod 755 "$work"
  log_dir=$work
}

# stack_postgres: a PostgreSQL server in $work/pg on a port that was free ($pg_port,
# the same again when a test restarts it); $url is its database. With PG_HA=sync or
# PG_HA=async, a three-node Patroni cluster in $work/pg-ha instead
# (scripts/pg-ha.sh), and $url names its three servers.
stack_postgres() {
  if [ -n "${PG_HA:-}" ]; then
    url=$("$root/scripts/pg-ha.sh" start "$work/pg-ha" "$PG_HA")
    return
  fi
  pg_port=$(free_port)
  url=$("$root/scripts/pg.sh" start "$work/pg" "$pg_port")
}

# stack_teardown STATUS: in the EXIT trap, once the script's own processes are
# stopped: stack_stop, then the PostgreSQL of $work/pg (or the cluster of $work/pg-ha); $work is removed when
# STATUS is 0 (unless KEEP_LOGS=1), else kept and named on stderr.
stack_teardown() {
  stack_stop
  "$root/scripts/pg.sh" stop "$work/pg" 2>/dev/null || true
  [ -z "${PG_HA:-}" ] || "$root/scripts/pg-ha.sh" stop "$work/pg-ha" 2>/dev/null || true
  if [ "$1" -eq 0 ] && [ "${KEEP_LOGS:-0}" != 1 ]; then
    rm -rf "$work"
  else
    echo "${0##*/}: logs kept in $work" >&2
  fi
}
