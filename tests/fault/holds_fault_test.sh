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
# In the scenarios below four staked players are matched (bots never stake) at one
# table, whose seats nobody plays: each seat's 5 ms clock runs out and the table's
# autopilot acts, so that the game is played to its end in seconds:
#
#   attachkill9  matchmaking dies (failpoint lobby.after_attach) right after the
#                ratings service attached the hold to the table, and is started
#                again: the game is settled against that table;
#   settlekill9  the ratings service dies (failpoint consumer.before_commit) once
#                it has read the finished game's outbox row and settled it in its
#                transaction, before the commit: nothing moved; started again,
#                it settles the game once;
#   settledkill9 the same after the commit (failpoint consumer.after_commit): the
#                game is settled, and the restarted service settles nothing twice;
#   tablekill9   the table service is killed (SIGKILL) while the staked table
#                plays and started again: it adopts the table after its lease
#                (3 s) and the game goes on; the hold is settled against that
#                table, or released if the table was voided.
#
# Each scenario ends with the checks: no hold of the run's players is open in the
# ratings service, every release matchmaking recorded is done, each player's
# available balance is their credit again (or, after a settled game, their credit
# plus payout minus stake, all of it available), and the ledger sums to zero, every
# settled game having moved its stakes and payouts exactly once (end_checks.sh's
# ledger_once).
#
#   tests/fault/holds_fault_test.sh [ratingsaway|holdkill9|releasekill9|attachkill9|
#                                    settlekill9|settledkill9|tablekill9 ...]
#
# Needs build/bin/{table-service,ratings-service,matchmaking-service} and the
# Python stubs in build/python.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
scenarios=()
for a in "$@"; do
  case "$a" in
    ratingsaway | holdkill9 | releasekill9 | attachkill9 | settlekill9 | settledkill9 | tablekill9)
      scenarios+=("$a") ;;
    *) echo "usage: holds_fault_test.sh [ratingsaway|holdkill9|releasekill9|attachkill9|settlekill9|settledkill9|tablekill9 ...]" >&2; exit 2 ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(ratingsaway holdkill9 releasekill9)

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir holdfault
client_pids=()
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  for p in "${client_pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT

stack_postgres
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
# shellcheck source=tests/fault/end_checks.sh
. "$root/tests/fault/end_checks.sh"

start_table() { stack_start table table-service --instance_id=holdfault-1 --lease_ttl=3s; }
# MAMLAKA_FAILPOINTS=name start_ratings (or start_matchmaking): with a failpoint.
start_ratings() { stack_start ratings ratings-service; }
# start_matchmaking [play]: with `play`, the tables' clocks are 5 ms, so that a game
# nobody plays is played out by the autopilot in seconds.
start_matchmaking() {
  local play=()
  [ "${1:-}" != play ] || play=(--card_ms=5)
  stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
    --stake_levels=100 --hold_admission_grace=5s "${play[@]}"
}
stop() {  # name
  kill -TERM "${pid[$1]}" 2>/dev/null || true
  wait "${pid[$1]}" 2>/dev/null || true
}
stop_matchmaking() { stop matchmaking; }

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
  client_pids+=($!)
  for _ in $(seq 1 100); do
    grep -q '"event": "queued"' "$work/$1.json" && return 0
    if [ "${2:-}" = died ] && ! kill -0 "${pid[matchmaking]}" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "  $1 was not queued:"; tail -n 5 "$work/$1.json" "$work/$1.log"
  return 1
}
close_client() {  # players
  for p in "$@"; do touch "$work/$p.close"; done
  for p in "${client_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  client_pids=()
}
ticket_status() { psql_ "SELECT status FROM mm_tickets WHERE player_id = '$1'"; }
wait_cancelled() {
  for _ in $(seq 1 100); do
    [ "$(ticket_status "$1")" = cancelled ] && return 0
    sleep 0.1
  done
  return 1
}
# The player's table (empty before it is matched) and what its hold's state is
# there (1 held, 2 attached, 3 released, 4 settled).
table_of() { psql_ "SELECT table_id FROM mm_assignments WHERE player_id = '$1'"; }
hold_state() { psql_ "SELECT coalesce(max(state), 0) FROM ratings.holds WHERE player_id = '$1'"; }
# The holds of the scenario's players by state: "1:3 2:1" is three held, one attached.
holds_by_state() {
  psql_ "SELECT string_agg(state || ':' || n, ' ' ORDER BY state) FROM (SELECT state, count(*) n
    FROM ratings.holds WHERE player_id LIKE '$player%' GROUP BY state) s"
}
wait_for() {  # seconds, then the condition's command
  local seconds=$1
  shift
  for _ in $(seq 1 $((seconds * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}
is_playing() {  # player: matched, and its game 20 entries in
  [ "$(psql_ "SELECT count(*) FROM games WHERE id = '$(table_of "$1")' AND finished IS NULL
    AND log_length > 20")" -eq 1 ]
}
is_finished() { [ "$(psql_ "SELECT count(*) FROM games WHERE id = '$(table_of "$1")' AND finished IS NOT NULL")" -eq 1 ]; }
is_consumed() { [ "$(psql_ "SELECT count(*) FROM game_results WHERE game_id = '$(table_of "$1")' AND consumed_at IS NOT NULL")" -eq 1 ]; }
# How the ratings service applied the player's game: settled, voided, unheld, ...
settlement() { psql_ "SELECT settlement FROM ratings.applied_games WHERE game_id = '$(table_of "$1")'"; }
# The player's credit back, or, after a settled game, moved by payout - stake
# (ledger_once checks that amount); nothing held.
credit_back() {
  local want=1000
  [ "$(settlement "$1")" != settled ] || want=$(psql_ "SELECT 1000 + sum(l.amount)
    FROM ratings.lines l JOIN ratings.entries e USING (entry_id)
    WHERE e.game_id = '$(table_of "$1")' AND l.account_id = 'player:$1'")
  [ "$(psql_ "SELECT balance || ' ' || held FROM ratings.accounts
    WHERE account_id = 'player:$1'")" = "$want 0" ]
}
end_checks() {  # player
  check "no hold of $1 is open" [ "$(held "$1")" -eq 0 ]
  check "every release matchmaking recorded is done" \
    [ "$(psql_ "SELECT count(*) FROM mm_hold_releases WHERE done IS NULL")" -eq 0 ]
  check "$1's credit is available again (moved only by a settled game)" credit_back "$1"
  check "the ledger sums to zero, every balance its lines" ledger_once
}
# The four staked players of a game (matchmaking started with `play`), queued in
# turn; with $1 = died, the last one's queueing may kill matchmaking.
queue_four() {
  for p in "${players[@]:0:3}"; do run_client "$p"; done
  run_client "${players[3]}" "${1:-}"
}
play_game() {
  queue_four
  check "the game is on" wait_for 30 is_playing "$player"
}
# After a fault: the game ends, is consumed by the ratings service and settled.
check_settled() {
  check "the game finished" wait_for 90 is_finished "$player"
  check "the ratings service applied it" wait_for 30 is_consumed "$player"
  check "it was settled against its table" [ "$(settlement "$player")" = settled ]
}

start_table
start_ratings
start_matchmaking
since=$(psql_ "SELECT now()")
for scenario in "${scenarios[@]}"; do
  echo "holds_fault_test: $scenario"
  player="p-$scenario"
  players=("$player")
  case "$scenario" in
    attachkill9 | settlekill9 | settledkill9 | tablekill9)
      players=("$player" "$player-1" "$player-2" "$player-3") ;;
  esac
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
    attachkill9)
      stop_matchmaking
      MAMLAKA_FAILPOINTS=lobby.after_attach start_matchmaking play
      queue_four died
      check "matchmaking died after attaching the hold" wait_for 30 \
        eval '! kill -0 "${pid[matchmaking]}" 2>/dev/null'
      wait "${pid[matchmaking]}" 2>/dev/null || true
      check "one hold was attached when it died, three only held" \
        [ "$(holds_by_state)" = "1:3 2:1" ]
      start_matchmaking play
      check_settled "$player"
      ;;
    settlekill9 | settledkill9)
      failpoint=consumer.before_commit
      [ "$scenario" = settlekill9 ] || failpoint=consumer.after_commit
      stop ratings
      MAMLAKA_FAILPOINTS=$failpoint start_ratings
      stop_matchmaking
      start_matchmaking play
      play_game "$player"
      check "the ratings service died settling the game" wait_for 90 \
        eval '! kill -0 "${pid[ratings]}" 2>/dev/null'
      wait "${pid[ratings]}" 2>/dev/null || true
      if [ "$scenario" = settlekill9 ]; then
        check "nothing was applied: the outbox row is pending, the hold attached" \
          [ "$(is_consumed "$player" && echo consumed || hold_state "$player")" = 2 ]
      else
        check "the game was settled before the kill" [ "$(settlement "$player")" = settled ]
      fi
      start_ratings
      check_settled "$player"
      ;;
    tablekill9)
      stop_matchmaking
      start_matchmaking play
      play_game "$player"
      kill -KILL "${pid[table]}"; wait "${pid[table]}" 2>/dev/null || true
      check "the table was killed mid-game, the hold attached" \
        [ "$(is_finished "$player" && echo finished || hold_state "$player")" = 2 ]
      at_kill=$(psql_ "SELECT log_length FROM games WHERE id = '$(table_of "$player")'")
      start_table
      check "the game finished" wait_for 90 is_finished "$player"
      echo "  the table was $(settlement "$player"), its log $at_kill entries at the kill," \
        "$(psql_ "SELECT log_length FROM games WHERE id = '$(table_of "$player")'") at its end"
      check "the ratings service applied it" wait_for 30 is_consumed "$player"
      check "it was settled against its table, or its table voided" \
        [ "$(settlement "$player" | grep -cx 'settled\|voided')" -eq 1 ]
      ;;
  esac
  close_client "${players[@]}"
  for p in "${players[@]}"; do end_checks "$p"; done
done
echo "holds_fault_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
