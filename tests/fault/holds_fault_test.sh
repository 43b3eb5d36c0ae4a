#!/usr/bin/env bash
# Fault tests of matchmaking's stake holds (CTest: fault_holds_*): a PostgreSQL
# server of the test's own, a table service, the ratings service and the
# matchmaking service, all real processes, and staked players' clients
# (staked_client.py: credited 1000, queue at stake 100, then close their
# stream). A fault strikes around a hold step:
#
#   ratingsaway  a staked player is queued (100 held); the ratings service is
#                killed (SIGKILL); the player closes the stream (the ticket is
#                cancelled, its release fails); 5 s later the ratings service
#                is started again: the 100 must be back within 10 s of it serving
#                (services/matchmaking/README.md, "Stake holds");
#   holdkill9    matchmaking dies (failpoint lobby.after_hold) right after the
#                ratings service held the stake, before the ticket is queued;
#                it is started again (without the failpoint, the admission grace
#                5 s): the hold of the ticket that was never queued is released;
#   releasekill9 a staked player closes the stream; matchmaking dies (failpoint
#                holds.before_release) as it is about to release the hold and is
#                started again: the release is done after its lease (30 s).
#
# Each scenario ends with the checks: no hold of the run's players is open in the
# ratings service, every release matchmaking recorded is done, each player's
# available balance is their credit again, and the ledger sums to zero
# (end_checks.sh's ledger_once).
#
#   tests/fault/holds_fault_test.sh [ratingsaway|holdkill9|releasekill9 ...]
#
# Needs build/bin/{table-service,ratings-service,matchmaking-service} and the
# Python stubs in build/python.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
scenarios=()
for a in "$@"; do
  case "$a" in
    ratingsaway | holdkill9 | releasekill9) scenarios+=("$a") ;;
    *) echo "usage: holds_fault_test.sh [ratingsaway|holdkill9|releasekill9 ...]" >&2; exit 2 ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(ratingsaway holdkill9 releasekill9)

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir holdfault
client_pid=""
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  [ -z "$client_pid" ] || { kill -TERM "$client_pid" 2>/dev/null; wait "$client_pid" 2>/dev/null; }
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT

stack_postgres
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
# shellcheck source=tests/fault/end_checks.sh
. "$root/tests/fault/end_checks.sh"

start_table() { stack_start table table-service --instance_id=holdfault-1; }
start_ratings() { stack_start ratings ratings-service; }
# MAMLAKA_FAILPOINTS=name start_matchmaking: with a failpoint.
start_matchmaking() {
  stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
    --stake_levels=100 --hold_admission_grace=5s
}
stop_matchmaking() {
  kill -TERM "${pid[matchmaking]}" 2>/dev/null || true
  wait "${pid[matchmaking]}" 2>/dev/null || true
}

passed=0
failed=0
check() {  # name, then the condition's command
  local name=$1
  shift
  if "$@"; then echo "PASS $scenario: $name"; passed=$((passed + 1)); else echo "FAIL $scenario: $name"; failed=$((failed + 1)); fi
}
# The player's open holds (held or attached) in the ratings service.
held() { psql_ "SELECT coalesce(sum(amount), 0) FROM ratings.holds WHERE player_id = '$1' AND state IN (1, 2)"; }
# Waits up to $2 seconds for the player's open holds to come to nothing; prints
# how long it took.
wait_released() {
  local start=$SECONDS
  for _ in $(seq 1 $(($2 * 10))); do
    if [ "$(held "$1")" -eq 0 ]; then echo "  $1's hold released $((SECONDS - start)) s after"; return 0; fi
    sleep 0.1
  done
  echo "  $1 still holds $(held "$1") after $2 s"
  return 1
}
# Starts the staked client for player $1; waits until its ticket is queued (or,
# with $2 = died, until matchmaking dies under it).
run_client() {
  PYTHONPATH=$bin/../python:$root/bots/python /usr/bin/python3 -u \
    "$root/tests/fault/staked_client.py" --matchmaking="127.0.0.1:${port[matchmaking]}" \
    --ratings="127.0.0.1:${port[ratings]}" --player="$1" --token="$token" \
    --stake=100 --credit=1000 --close_when="$work/$1.close" \
    >"$work/$1.json" 2>"$work/$1.log" &
  client_pid=$!
  for _ in $(seq 1 100); do
    grep -q '"event": "queued"' "$work/$1.json" && return 0
    if [ "${2:-}" = died ] && ! kill -0 "${pid[matchmaking]}" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "  $1 was not queued:"; tail -n 5 "$work/$1.json" "$work/$1.log"
  return 1
}
close_client() {
  touch "$work/$1.close"
  wait "$client_pid" 2>/dev/null || true
  client_pid=""
}
ticket_status() { psql_ "SELECT status FROM mm_tickets WHERE player_id = '$1'"; }
wait_cancelled() {
  for _ in $(seq 1 100); do
    [ "$(ticket_status "$1")" = cancelled ] && return 0
    sleep 0.1
  done
  return 1
}
end_checks() {  # player
  check "no hold of $1 is open" [ "$(held "$1")" -eq 0 ]
  check "every release matchmaking recorded is done" \
    [ "$(psql_ "SELECT count(*) FROM mm_hold_releases WHERE done IS NULL")" -eq 0 ]
  check "$1's 1000 are available again" [ "$(psql_ "SELECT balance - held
    FROM ratings.accounts WHERE account_id = 'player:$1'")" -eq 1000 ]
  check "the ledger sums to zero, every balance its lines" ledger_once
}

start_table
start_ratings
start_matchmaking
since=$(psql_ "SELECT now()")
for scenario in "${scenarios[@]}"; do
  echo "holds_fault_test: $scenario"
  player="p-$scenario"
  case "$scenario" in
    ratingsaway)
      run_client "$player"
      check "the stake is held while the ticket waits" [ "$(held "$player")" -eq 100 ]
      kill -KILL "${pid[ratings]}"; wait "${pid[ratings]}" 2>/dev/null || true
      close_client "$player"
      check "the ticket is cancelled" wait_cancelled "$player"
      sleep 5
      check "the release is recorded, not done" \
        [ "$(psql_ "SELECT count(*) FROM mm_hold_releases WHERE done IS NULL")" -ge 1 ]
      start_ratings
      check "the hold is back within 10 s of the ratings service serving" \
        wait_released "$player" 10
      ;;
    holdkill9)
      stop_matchmaking
      MAMLAKA_FAILPOINTS=lobby.after_hold start_matchmaking
      run_client "$player" died
      wait "${pid[matchmaking]}" 2>/dev/null || true
      close_client "$player"
      check "the stake was held when matchmaking died" [ "$(held "$player")" -eq 100 ]
      check "no ticket was queued" [ -z "$(ticket_status "$player")" ]
      start_matchmaking
      check "the hold of the ticket never queued is released (grace 5 s)" \
        wait_released "$player" 20
      ;;
    releasekill9)
      stop_matchmaking
      MAMLAKA_FAILPOINTS=holds.before_release start_matchmaking
      run_client "$player"
      close_client "$player"
      for _ in $(seq 1 100); do kill -0 "${pid[matchmaking]}" 2>/dev/null || break; sleep 0.1; done
      check "matchmaking died about to release" eval '! kill -0 "${pid[matchmaking]}" 2>/dev/null'
      check "the ticket is cancelled" wait_cancelled "$player"
      check "the stake is still held" [ "$(held "$player")" -eq 100 ]
      start_matchmaking
      check "the release is done after its lease (30 s)" wait_released "$player" 45
      ;;
  esac
  end_checks "$player"
done
echo "holds_fault_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
