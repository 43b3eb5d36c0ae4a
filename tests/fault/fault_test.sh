#!/usr/bin/env bash
# Fault tests (CTest: fault_test): real processes, real PostgreSQL, games played by
# trix-table-demo's trix-bot processes while a fault strikes mid-game:
#
#   kill9     the table service is killed with SIGKILL and started again under the
#             same instance id (it resumes its tables once their leases lapse);
#   sigstop   the table service is stopped (SIGSTOP) for twice its lease, then
#             continued;
#   pgrestart PostgreSQL is stopped and started again under the running service;
#   garbage   for ten seconds, connections to the service's port send random bytes,
#             an HTTP/2 preface followed by random frames, or a frame header
#             announcing 16 MiB, then hang up (the service must shrug them off).
#
# Each scenario ends with the checks: trix-table-demo saw every game end with a consistent
# result (totals sum to zero, places and payouts follow) and every bot exit 0; every
# game of the scenario is finished in the database; every game's log is dense
# (entries 0..n-1, n = games.log_length); and no acknowledged action was lost: each
# seat's client entries in the log are at least the bot's count of accepted actions
# (and at most one more per stream break: an action made durable whose answer was
# lost with the stream); the checks of end_checks.sh: every game's stored log
# replays through trix-replay's engine to the result recorded in game_results, and
# the ratings service (running beside the table service throughout) rated each
# game once and moved its money once (the staked game's players have no accounts
# and so no holds: it is recorded unheld and nothing moves); and that the fault was felt: for
# kill9 some seat reopened its stream, for pgrestart the service saw the database
# go and come back, for garbage the service still runs.
#
# tests/fault/matchmaking_fault_test.cc has the faults of the whole deployment
# (matchmaking, ratings, bot accounts); tests/fault/matchmaking_fault_test.sh those
# of a replicated PostgreSQL.
#
#   tests/fault/fault_test.sh [--full] [scenario ...]
#
# Shortened by default (one kingdom, two tables, ~2 minutes in all); --full plays
# four kingdoms at four tables. Needs build/bin/{table-service,ratings-service,trix-bot,
# trix-table-demo,trix-game-cases,trix-replay,trix-conformance-compare}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
full=0
scenarios=()
for a in "$@"; do
  case "$a" in
    --full) full=1 ;;
    kill9 | sigstop | pgrestart | garbage) scenarios+=("$a") ;;
    *) echo "usage: fault_test.sh [--full] [kill9|sigstop|pgrestart|garbage ...]" >&2; exit 2 ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(kill9 sigstop pgrestart garbage)
if [ "$full" = 1 ]; then games=4 kingdoms=4 pace=150ms; else games=2 kingdoms=1 pace=100ms; fi
lease=3s

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir fault
demo_pid=""
cleanup() {
  local status=$?
  trap - EXIT
  [ -z "$demo_pid" ] || { kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null; } || true
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT

stack_postgres
# shellcheck source=tests/fault/end_checks.sh
. "$root/tests/fault/end_checks.sh"
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')

# The kernel picks the table service's port at the first start; a restart takes
# the same one.
start_service() {
  stack_start table-service table-service --instance_id=fault-1 --lease_ttl=$lease \
    --peer_rate=100000 --peer_burst=100000
}

# The ratings service, consuming the outbox throughout (database restart included).
start_ratings() { stack_start ratings-service ratings-service; }

# Waits until one of the scenario's games has more than $1 log entries.
wait_for_play() {
  for _ in $(seq 1 600); do
    n=$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL AND log_length > $1 AND created > '$since'" 2>/dev/null || echo 0)
    [ "${n:-0}" -gt 0 ] && return 0
    kill -0 "$demo_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

passed=0
failed=0
check() {  # name, then the condition's command
  local name=$1
  shift
  if "$@"; then echo "PASS $scenario: $name"; passed=$((passed + 1)); else echo "FAIL $scenario: $name"; failed=$((failed + 1)); fi
}

no_unfinished() { [ "$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL AND created > '$since'")" -eq 0 ]; }
all_played() { [ "$(psql_ "SELECT count(*) FROM games WHERE finished IS NOT NULL AND created > '$since'")" -eq "$games" ]; }
logs_dense() {
  [ "$(psql_ "SELECT count(*) FROM games g LEFT JOIN
      (SELECT game_id, count(*) AS n, max(idx) + 1 AS m FROM game_log GROUP BY game_id) l
      ON l.game_id = g.id
    WHERE g.created > '$since'
      AND (coalesce(l.n, 0) <> g.log_length OR coalesce(l.m, 0) <> g.log_length)")" -eq 0 ]
}
# The service saw PostgreSQL go away and come back. Its streams may well stay
# open through a short outage (appends wait for the database), so this is the
# sign that the restart struck mid-game.
database_outage_seen() {
  [ "$(grep -c '"msg":"the database is back"' "$work/table-service.log")" -gt "$1" ]
}

# The fault reached the players: some seat had to open its stream again.
fault_felt() {
  [ "$(cat "$work/$scenario"/table*-seat*.log | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    try: n += json.loads(line).get("resubscribes", 0)
    except (ValueError, AttributeError): pass
print(n)')" -gt 0 ]
}

start_service
start_ratings
for scenario in "${scenarios[@]}"; do
  since=$(psql_ "SELECT now()")
  mkdir -p "$work/$scenario"
  MAMLAKA_TABLE_DEMO_SERVICE_TOKEN=$token "$bin/trix-table-demo" \
    --address="127.0.0.1:${port[table-service]}" --games=$games --kingdoms=$kingdoms \
    --watch=0 --pace=$pace --staked=1 \
    --modes=complex-partner,classic-solo,complex-solo,classic-partner \
    --log_dir="$work/$scenario" --timeout=8m --wait_for_service=2m \
    >"$work/$scenario/demo.log" 2>&1 &
  demo_pid=$!
  if ! wait_for_play 30; then
    cat "$work/$scenario/demo.log"
    echo "FAIL $scenario: no game got under way"
    failed=$((failed + 1))
    continue
  fi
  outages_before=$(grep -c '"msg":"the database is back"' "$work/table-service.log" || true)
  case "$scenario" in
    kill9)
      kill -KILL "${pid[table-service]}"
      wait "${pid[table-service]}" 2>/dev/null || true
      sleep 1
      start_service
      ;;
    sigstop)
      kill -STOP "${pid[table-service]}"
      sleep 6  # twice the lease
      kill -CONT "${pid[table-service]}"
      ;;
    pgrestart)
      "$root/scripts/pg.sh" stop "$work/pg"
      sleep 2
      "$root/scripts/pg.sh" start "$work/pg" "$pg_port" >/dev/null
      ;;
    garbage)
      python3 "$root/tests/fault/garbage_bytes.py" 10 "${port[table-service]}"
      ;;
  esac
  echo "fault_test: $scenario struck at $(date -u +%T)"
  demo_status=0
  wait "$demo_pid" || demo_status=$?
  demo_pid=""
  check "every game ended with a consistent result, every bot exited 0" [ "$demo_status" -eq 0 ]
  [ "$demo_status" -eq 0 ] || tail -n 30 "$work/$scenario/demo.log"
  check "no game left unfinished" no_unfinished
  check "all $games games finished" all_played
  check "every game's log is dense" logs_dense
  check "every acknowledged action is in the log" \
    acknowledged_kept "$work/$scenario/table*-seat*.log" $((games * 4))
  check "every game's log replays to its recorded result" games_replay "$work/$scenario/replay" "$games"
  check "every game was rated once" eval 'wait_rated 60 && rated_once'
  check "every game's money moved once" ledger_once
  # A paused instance whose lease nobody took may renew it before anyone notices.
  case "$scenario" in
    kill9) check "the seats felt the fault (streams reopened)" fault_felt ;;
    pgrestart) check "the service saw the database go and come back" \
      database_outage_seen "$outages_before" ;;
    garbage) check "the table service is still running" kill -0 "${pid[table-service]}" ;;
  esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
