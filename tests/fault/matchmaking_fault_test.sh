#!/usr/bin/env bash
# Fault tests of the whole deployment on a replicated PostgreSQL (CTest:
# fault_database_failover_test, fault_database_async_failover_test): a table
# service, the ratings service and the matchmaking service, all real processes,
# and per scenario one trix-demo run: seven players queue through matchmaking (a
# party of two, four at a staked table, one alone; their accounts credited first),
# bot accounts' trix-bot processes fill the empty seats, and each person's seat is
# played by a trix-bot process; table-load plays 40 more tables. A fault strikes
# mid-flow:
#
#   pgkill9      on a replicated PostgreSQL (PG_HA=sync or async: a three-node
#                Patroni cluster of scripts/pg-ha.sh; sync by default), the
#                primary's postmaster is killed with SIGKILL while a staked game
#                is played and tickets wait: Patroni promotes a standby, and every
#                service follows it through its multi-host connection string;
#                with PG_HA=async the standby may lack the last commits: the table
#                service must find each table whose log is now shorter than it
#                acknowledged, rebuild it and play on (its streams get a snapshot);
#   pgfreeze     the same cluster's primary node (Patroni and PostgreSQL) is
#                stopped with SIGSTOP for 25 s (PG_FREEZE_SECONDS; past Patroni's
#                20 s TTL: a standby is promoted meanwhile), then continued: it
#                must come back as a standby;
#   pgswitchover an operator's planned switchover (patronictl switchover).
#
# The deployment's other faults (a client's dropped connections, bad requests, a
# crash of the single PostgreSQL server, matchmaking, the ratings service and the
# bot accounts' processes killed) are tests/fault/matchmaking_fault_test.cc's.
#
# Each scenario ends with the checks: trix-demo exits 0 (every person got a seat,
# every game ended with a consistent result and every person was rated); three
# games were assigned and all of them finished; every ticket matched has its seat in
# mm_assignments, no ticket is left waiting, and every game's four seats are the
# ones matchmaking assigned (no assignment lost or changed); then
# end_checks.sh: every game's stored log replays through trix-replay's engine to
# its recorded result, each game was rated once and its money moved once; and
# that the fault was felt: a ticket waiting at the fault was seated after it, no
# acknowledged action is missing from the log (each person's client's
# count of accepted actions against its seat's entries; with PG_HA=async, that each
# one missing is at a table the table service logged as rewound and rebuilt, and
# how many were lost), that no service restarted
# and each said SERVING at the end, that the cluster has its three members again,
# and print the time from the fault to each table's first action committed after
# it (p50, p99, max; from PostgreSQL's commit timestamps) and the calls the clients
# saw refused meanwhile, by code.
#
#   PG_HA=sync tests/fault/matchmaking_fault_test.sh [--full] [scenario ...]
#
# --full: the people at the watched table think 200 ms instead of 40 ms (a longer
# game, so the fault strikes deeper into it). With no scenario named, all three. Needs build/bin/{table-service,
# ratings-service,matchmaking-service,trix-demo,trix-bot,trix-game-cases,
# trix-replay,trix-conformance-compare,table-load}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
pace=40ms
scenarios=()
for a in "$@"; do
  case "$a" in
    --full) pace=200ms ;;
    pgkill9 | pgfreeze | pgswitchover) scenarios+=("$a") ;;
    *) echo "usage: matchmaking_fault_test.sh [--full] [pgkill9|pgfreeze|pgswitchover ...]" >&2; exit 2 ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(pgkill9 pgfreeze pgswitchover)
: "${PG_HA:=sync}"
# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir mmfault
demo_pid=""
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  [ -z "$demo_pid" ] || { kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null; }
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT

stack_postgres
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
# shellcheck source=tests/fault/end_checks.sh
. "$root/tests/fault/end_checks.sh"

# A restart takes the port of the first start (clients keep their address).
start_table() {
  stack_start table table-service --instance_id=mmfault-1 --lease_ttl=3s \
    --peer_rate=100000 --peer_burst=100000
}
# Every client of the test calls from 127.0.0.1: the per-address limits are lifted,
# as the table's are.
start_ratings() { stack_start ratings ratings-service --peer_rate=100000 --peer_burst=100000; }
# Bots fill seats after 8 s: longer than a bot account's reconnect backoff (5 s at
# most), so that after a restart every account is back before seats are given
# out (a seat with no bot account connected goes to the table's autopilot, which
# plays it from the first move: such a game is not the bots' test).
start_matchmaking() {
  stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
    --stake_levels=100 --bot_fill_wait=8s --peer_rate=100000 --peer_burst=100000
}

passed=0
failed=0
check() {  # name, then the condition's command
  local name=$1
  shift
  if "$@"; then echo "PASS $scenario: $name"; passed=$((passed + 1)); else echo "FAIL $scenario: $name"; failed=$((failed + 1)); fi
}
count() { psql_ "$1" 2>/dev/null || echo 0; }
# Waits up to $2 seconds for the query's count to reach $1.
wait_count() {
  for _ in $(seq 1 $(($2 * 10))); do
    [ "$(count "$3")" -ge "$1" ] && return 0
    kill -0 "$demo_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# The games matchmaking assigned seats at: $1 (three), all finished.
assigned="EXISTS (SELECT 1 FROM mm_assignments a WHERE a.table_id = g.id)"
games_made() {
  [ "$(count "SELECT count(*) FROM games g WHERE created >= '$since' AND $assigned")" -eq "$1" ] &&
  [ "$(count "SELECT count(*) FROM games g WHERE created >= '$since' AND $assigned
      AND finished IS NOT NULL")" -eq "$1" ]
}
# Known defect: a matchmaking service killed between CreateTable and writing the
# table's assignments leaves that table with nobody assigned (the restarted one
# groups the tickets again and creates another table under a new request id); its
# clocks then play it out by autopilot, and it is rated and settled. Reported, not
# failed, unless STRICT=1.
orphan_tables() {
  local n
  n=$(count "SELECT count(*) FROM games g WHERE created >= '$since' AND NOT $assigned
    AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id
                    AND (s.player_id LIKE 'flood-%' OR s.player_id LIKE 'load-%'))")
  [ "$n" -eq 0 ] && return 0
  if [ "${STRICT:-0}" = 1 ]; then
    echo "FAIL $scenario: $n tables created with nobody assigned"
    failed=$((failed + 1))
  else
    echo "KNOWN $scenario: $n tables created with nobody assigned (the kill struck mid-placement)"
  fi
}
# Every matched ticket has its seat; every game's seats are the assigned players.
assignments_kept() {
  # A seat no bot was free for is the table's autopilot's from the first move
  # (matcher.cc): it has no assignment, nobody being told of it.
  local autopilot="s.bot AND s.player_id LIKE 'autopilot-%'"
  local seats_off="FROM games g JOIN game_seats s ON s.game_id = g.id
      LEFT JOIN mm_assignments a ON a.table_id = g.id AND a.seat = s.seat
    WHERE g.created >= '$since' AND $assigned
      AND CASE WHEN a.seat IS NULL THEN NOT ($autopilot)
               ELSE a.player_id IS DISTINCT FROM s.player_id OR a.bot IS DISTINCT FROM s.bot END"
  none_of "matched tickets without their seat in mm_assignments" "
    SELECT count(*) FROM mm_tickets t WHERE t.queued >= '$since' AND t.status = 'matched'
      AND NOT EXISTS (SELECT 1 FROM mm_assignments a WHERE a.ticket_id = t.ticket_id)" &&
  none_of "tickets of the run not matched" "
    SELECT count(*) FROM mm_tickets t WHERE t.queued >= '$since'
      AND t.status IN ('waiting', 'placing')" || return 1
  local autopilots
  autopilots=$(count "SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id
    WHERE g.created >= '$since' AND $assigned AND $autopilot")
  [ "$autopilots" -eq 0 ] || echo "  $autopilots seats played by the autopilot (no bot was free when the table was made)"
  none_of "game seats that are not what matchmaking assigned" "SELECT count(*) $seats_off" || {
    psql_ "SELECT g.id, s.seat, s.player_id, s.bot, a.player_id, a.bot, g.finished IS NOT NULL $seats_off"
    return 1
  }
}
# Every staked seat's money was held while its ticket waited and settled with its
# game: its hold is settled (not released, nor held or attached forever), and no
# hold of the run's tickets is left open.
holds_settled() {
  none_of "staked seats of finished games whose hold was not settled with the game" "
    SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id
    WHERE g.created >= '$since' AND g.finished IS NOT NULL AND s.stake > 0 AND $assigned
      AND NOT EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id
                      AND h.seat = s.seat AND h.player_id = s.player_id AND h.state = 4)" &&
  none_of "holds of the run's tickets still open" "
    SELECT count(*) FROM ratings.holds h JOIN mm_tickets t ON t.hold_id = h.hold_id
    WHERE t.queued >= '$since' AND h.state IN (1, 2)"
}
# A ticket that was waiting at the fault was seated after it.
seated_after_restart() {
  [ "$(count "SELECT count(*) FROM mm_assignments a JOIN mm_tickets t USING (ticket_id)
      WHERE t.queued < '$struck' AND a.matched > '$struck'")" -gt 0 ]
}

# Polls the gRPC health (overall status) of the services on the ports given, every
# 200 ms, and writes "name status" to $work/$scenario/health.<name> on each
# change, until $work/$scenario/health.stop exists.
watch_health() {
  /usr/bin/python3 - "$work/$scenario" "$@" <<'PY'
import os, sys, time
import grpc
out, ports = sys.argv[1], dict(a.split("=") for a in sys.argv[2:])
names = {b"\x08\x01": "SERVING", b"\x08\x02": "NOT_SERVING"}
last = {}
checks = {n: grpc.insecure_channel("127.0.0.1:" + p).unary_unary(
    "/grpc.health.v1.Health/Check") for n, p in ports.items()}
while not os.path.exists(os.path.join(out, "health.stop")):
    for name, check in checks.items():
        try:
            status = names.get(check(b"", timeout=1), "UNKNOWN")
        except grpc.RpcError as e:
            status = e.code().name
        if last.get(name) != status:
            last[name] = status
            with open(os.path.join(out, "health." + name), "a") as f:
                f.write(status + "\n")
    time.sleep(0.2)
PY
}
# pgkill9, pgfreeze, pgswitchover: the fault at the replicated cluster's primary.
ha() { "$root/scripts/pg-ha.sh" "$1" "$work/pg-ha" "${@:2}"; }
fail_primary() {
  local node
  node=$(ha primary) || { echo "  no primary to fail"; return 1; }
  echo "$node" >"$work/$scenario/old-primary"
  case "$scenario" in
    pgkill9) kill -KILL "$(ha pid "$node" postgres)" ;;
    pgfreeze) ha freeze "$node"; sleep "${PG_FREEZE_SECONDS:-25}"; ha thaw "$node" ;;  # past Patroni's TTL (20 s)
    pgswitchover) ha ctl switchover --force >"$work/$scenario/switchover.out" 2>&1 ;;
  esac
}
# Another node is primary now and all three members run (the old primary back as
# a standby), within a minute.
cluster_whole() {
  local old new running
  old=$(cat "$work/$scenario/old-primary")
  for _ in $(seq 1 60); do
    new=$(ha primary || true)
    running=$(ha ctl list -f json 2>/dev/null | python3 -c '
import json, sys
print(sum(m.get("State") in ("running", "streaming") for m in json.load(sys.stdin)))' || echo 0)
    if [ -n "$new" ] && [ "$new" != "$old" ] && [ "$running" = 3 ]; then
      echo "  primary $old, now $new; 3 members running"
      return 0
    fi
    sleep 1
  done
  ha list
  return 1
}
# Each service still runs its first process and says SERVING at the end.
serving_unrestarted() {
  kill -0 "${pid[$1]}" 2>/dev/null &&
  [ "$(grep -c '"msg":"serving"' "$work/$1.log")" -eq 1 ] &&
  [ "$(tail -n 1 "$work/$scenario/health.$1")" = SERVING ]
}
# PG_HA=async: the tables the table service found shorter than acknowledged and
# rebuilt (its error log lines), one id a line in $work/$scenario/rewound, and the
# sum of the entries they lost, printed with their count.
rewinds() {
  python3 - "$work/table.log" "$work/$scenario/rewound" <<'PY'
import json, sys
tables, lost = set(), 0
for line in open(sys.argv[1], errors="replace"):
    if "log is shorter than acknowledged" not in line:
        continue
    j = json.loads(line[line.index("{"):])
    if not j.get("msg", "").startswith("log is shorter than acknowledged"):
        continue  # the refused append's own warning
    tables.add(j["table"])
    lost += int(j["acknowledged"]) - int(j["stored"])
open(sys.argv[2], "w").write("".join(t + "\n" for t in sorted(tables)))
print(len(tables), lost)
PY
}
# PG_HA=async: table-load's durability check may find acknowledged actions missing,
# but no more than the rewound tables lost, and nothing else wrong.
load_losses_rewound() {  # exit status of table-load, entries the rewinds lost
  python3 - "$work/$scenario/load.out" "$1" "$2" <<'PY'
import json, sys
status, lost = int(sys.argv[2]), int(sys.argv[3])
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
d = runs[-1]["durability"]
print("  table-load: %d acknowledged actions, %d missing (rewinds lost %d entries)"
      % (d["acked"], d["missing"], lost))
ok = d["foreign"] == 0 and d["record_errors"] == 0 and d["missing"] <= lost
sys.exit(0 if ok and (status == 0 or d["missing"] > 0) else 1)
PY
}
# From the fault to each table's first action committed after it, for the tables
# in play then (PostgreSQL's commit timestamps), and the calls the clients saw
# refused meanwhile, by code.
failover_report() {
  psql_ "SELECT format('  %s tables in play: first action after the fault p50 %s s, p99 %s s, max %s s',
      count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY w)::numeric, 2),
      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY w)::numeric, 2), round(max(w)::numeric, 2))
    FROM (SELECT extract(epoch FROM min(pg_xact_commit_timestamp(l.xmin)) - '$struck') AS w
          FROM games g JOIN game_log l ON l.game_id = g.id
          WHERE g.created < '$struck' AND (g.finished IS NULL OR g.finished > '$struck')
            AND pg_xact_commit_timestamp(l.xmin) > '$struck'
          GROUP BY g.id) t"
  local names="OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS
    PERMISSION_DENIED RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED OUT_OF_RANGE
    UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS UNAUTHENTICATED"
  echo "  refused meanwhile, by code: $({
    cat "$work/$scenario"/*.log 2>/dev/null |
      grep -oE '(action refused|action failed|resyncing): [A-Z_]+' | sed 's/.*: //'
    grep -oE '^table-load: action .* seat [0-3]: [0-9]+ ' "$work/$scenario/load.out" |
      awk -v names="$names" '{split(names, n, " "); print n[$NF + 1]}'
  } | sort | uniq -c | awk '{printf "%s %s ", $2, $1}')"
}

start_table
start_ratings
start_matchmaking
for scenario in "${scenarios[@]}"; do
  since=$(psql_ "SELECT now()")
  mkdir -p "$work/$scenario"
  # Forty more tables in play beside the three (table-load's, its seats load-*),
  # each acknowledged action checked in the log at the end.
  MAMLAKA_LOAD_SERVICE_TOKEN=$token "$bin/table-load" --target="127.0.0.1:${port[table]}" \
    --tables=40 --rate=150 --warmup=1s --duration=50s --drain=15s --target_rate=1 \
    --target_p99_ms=1000000 >"$work/$scenario/load.out" 2>&1 &
  load_pid=$!
  MAMLAKA_DEMO_SERVICE_TOKEN=$token "$bin/trix-demo" \
    --matchmaking="127.0.0.1:${port[matchmaking]}" --ratings="127.0.0.1:${port[ratings]}" \
    --pace="$pace" --log_dir="$work/$scenario" --timeout=3m >"$work/$scenario/demo.log" 2>&1 &
  demo_pid=$!
  ok=1
  # The staked table in play, the party and the loner waiting for bots.
  watch_health table="${port[table]}" matchmaking="${port[matchmaking]}" \
    ratings="${port[ratings]}" &
  watch_pid=$!
  wait_count 4 60 "SELECT count(*) FROM mm_assignments WHERE matched >= '$since'" || ok=0
  wait_count 1 60 "SELECT count(*) FROM mm_tickets WHERE queued >= '$since' AND status = 'waiting'" || ok=0
  wait_count 40 60 "SELECT count(*) FROM games g WHERE created >= '$since' AND log_length > 20
    AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.player_id LIKE 'load-%')" || ok=0
  struck=$(psql_ "SELECT now()")
  fail_primary || ok=0
  [ "$ok" = 1 ] || { echo "FAIL $scenario: the fault could not strike mid-flow"; tail -n 20 "$work/$scenario/demo.log"; }
  echo "matchmaking_fault_test: $scenario struck at $(date -u +%T)"
  demo_status=0
  wait "$demo_pid" || demo_status=$?
  demo_pid=""
  check "every player seated, every game consistent and rated (trix-demo exit 0)" [ "$demo_status" -eq 0 ]
  [ "$demo_status" -eq 0 ] || tail -n 30 "$work/$scenario/demo.log"
  touch "$work/$scenario/health.stop"
  wait "$watch_pid" || true
  check "3 games made, all finished" games_made 3
  check "no assignment lost or changed" assignments_kept
  orphan_tables
  check "every game's log replays to its recorded result" games_replay "$work/$scenario/replay" 3
  check "every game was rated once" eval 'wait_rated && rated_once'
  check "every game's money moved once" ledger_once
  check "every stake was held until its game settled it" holds_settled
  load_status=0
  wait "$load_pid" || load_status=$?
  grep -E "durability|targets" "$work/$scenario/load.out"
  if [ "$PG_HA" = async ]; then
    read -r rewound lost < <(rewinds)
    echo "  $rewound tables found shorter than acknowledged and rebuilt, $lost entries lost"
    check "every acknowledged action lost is at a table found and rebuilt" \
      acknowledged_kept "$work/$scenario/*.log" 7 "$work/$scenario/rewound"
    check "table-load's lost actions are no more than the rewinds counted" \
      load_losses_rewound "$load_status" "$lost"
  else
    check "no acknowledged action is missing from the log" \
      acknowledged_kept "$work/$scenario/*.log" 7
    check "every action table-load saw acknowledged at its 40 tables is in the log" \
      [ "$load_status" -eq 0 ]
  fi
  for name in table matchmaking ratings; do
    check "$name was not restarted and says SERVING" serving_unrestarted $name
  done
  check "the cluster has a new primary and its three members" cluster_whole
  check "a ticket waiting at the fault was seated after it" seated_after_restart
  failover_report
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
