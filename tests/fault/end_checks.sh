# The checks every fault scenario (and the soak run) ends with, on the games created
# since a moment. Sourced by tests/fault/*.sh and tests/soak/run_soak.sh, which set
# `bin` (the built binaries), `url` (the database) and `since` (a timestamp from
# the database's own clock). Each function prints what is wrong and returns 1.
#
#   games_replay DIR N   every finished game's stored log, replayed by trix-replay's
#                        engine (as a rule case written by trix-game-cases), gives
#                        the totals, places or team result, and payouts the table
#                        service recorded in game_results; and there are N of them
#                        (N empty: any number);
#   wait_rated [S]       waits up to S seconds (30 by default) until the ratings
#                        service consumed every finished game's outbox row, as
#                        rated_once expects;
#   rated_once           each finished game was applied by the ratings service once:
#                        its outbox row consumed, one applied_games row, one rating
#                        history row per seat (a voided table, whose game is over
#                        with no result, none: table-load voids its unfinished
#                        tables when it ends); every rating's history is a chain
#                        (each change starts where the last ended, and the rating
#                        is where its last change ended), as many changes as games;
#   ledger_once          the ledger sums to zero and every balance is the sum of its
#                        lines; a settled game moved its stakes and payouts in one
#                        stake and one payout entry that net each staker exactly
#                        payout - stake and leave the pot empty, with no hold left
#                        attached to its seats; an unheld game (staked seats without
#                        their hold) moved nothing or one such pair, its pot empty;
#                        an unstaked or unsettled game moved nothing;
#   acknowledged_kept GLOB N  the N seat clients' result lines (trix-bot's JSON with
#                        "table", "seat", "actions", "resubscribes") in the files of
#                        GLOB: each seat's client entries in the log are at least
#                        its count of accepted actions (none missing), and at most
#                        one more per stream break (an action made durable whose
#                        answer the break swallowed);
#   acknowledged_kept GLOB N REWOUND  the same after an asynchronous failover, which
#                        may lose acknowledged actions: a seat's missing ones are
#                        counted and reported, and fail only when its table is not
#                        in the file REWOUND (the tables the table service found
#                        shorter than acknowledged and rebuilt, one id a line).

psql_() { /usr/lib/postgresql/15/bin/psql "$url" -v ON_ERROR_STOP=1 -tAc "$1"; }

# Prints the count of the query's rows and fails unless it is zero.
none_of() {  # description, SELECT count(*) ...
  local n
  n=$(psql_ "$2") || { echo "  query failed: $1"; return 1; }
  [ "$n" -eq 0 ] || { echo "  $n $1"; return 1; }
}

games_replay() {
  local dir=$1 want=${2:-} n
  mkdir -p "$dir"
  "$bin/trix-game-cases" --database_url="$url" --since="$since" \
    --cases="$dir/cases.jsonl" --expected="$dir/recorded.jsonl" >"$dir/game-cases.out" || {
    cat "$dir/game-cases.out"
    return 1
  }
  n=$(grep -c . "$dir/cases.jsonl" || true)
  if [ -n "$want" ] && [ "$n" -ne "$want" ]; then
    echo "  $n finished games, not $want"
    return 1
  fi
  "$bin/trix-replay" <"$dir/cases.jsonl" >"$dir/replayed.jsonl"
  "$bin/trix-conformance-compare" "$dir/recorded.jsonl" "$dir/replayed.jsonl" \
    >"$dir/compare.out" || { head -n 20 "$dir/compare.out"; return 1; }
  echo "  $n games replayed to their recorded results"
}

wait_rated() {
  for _ in $(seq 1 $((${1:-30} * 10))); do
    [ "$(psql_ "SELECT count(*) FROM game_results r JOIN games g ON g.id = r.game_id
        WHERE r.consumed_at IS NULL AND g.created >= '$since'")" -eq 0 ] && return 0
    sleep 0.1
  done
  echo "  finished games still waiting for the ratings service"
  return 1
}

rated_once() {
  local f="g.finished IS NOT NULL AND g.created >= '$since'"
  none_of "finished games not applied once by the ratings service" "
    SELECT count(*) FROM games g
      LEFT JOIN game_results r ON r.game_id = g.id
      LEFT JOIN ratings.applied_games a ON a.game_id = g.id
    WHERE $f AND (r.consumed_at IS NULL OR a.game_id IS NULL
                  OR (NOT a.rated AND a.settlement <> 'voided') OR a.outbox_id <> r.id)" &&
  none_of "finished games without exactly one rating change per seat (none if voided)" "
    SELECT count(*) FROM games g
      JOIN ratings.applied_games a ON a.game_id = g.id
    WHERE $f AND (SELECT count(*) FROM ratings.rating_history h WHERE h.game_id = g.id)
                 <> CASE WHEN a.settlement = 'voided' THEN 0 ELSE 4 END" &&
  none_of "rating changes of games that are not finished" "
    SELECT count(*) FROM ratings.rating_history h
      LEFT JOIN games g ON g.id = h.game_id WHERE g.finished IS NULL" &&
  none_of "rating changes that do not start where the last one ended" "
    SELECT count(*) FROM (
      SELECT mu_before, sigma_before,
             lag(mu_after) OVER w AS mu, lag(sigma_after) OVER w AS sigma
      FROM ratings.rating_history
      WINDOW w AS (PARTITION BY player_id, mode ORDER BY outbox_id)) x
    WHERE mu IS NOT NULL AND (mu <> mu_before OR sigma <> sigma_before)" &&
  none_of "ratings not where their last change ended, or not one change per game" "
    SELECT count(*) FROM ratings.player_ratings p
    WHERE p.games <> (SELECT count(*) FROM ratings.rating_history h
                      WHERE h.player_id = p.player_id AND h.mode = p.mode)
       OR NOT EXISTS (SELECT 1 FROM (
            SELECT h.mu_after, h.sigma_after FROM ratings.rating_history h
            WHERE h.player_id = p.player_id AND h.mode = p.mode
            ORDER BY h.outbox_id DESC LIMIT 1) l
          WHERE l.mu_after = p.mu AND l.sigma_after = p.sigma)"
}

ledger_once() {
  local f="g.finished IS NOT NULL AND g.created >= '$since'"
  none_of "units the ledger's lines are off zero (in absolute value)" "
    SELECT abs(coalesce(sum(amount), 0)) FROM ratings.lines" &&
  none_of "accounts whose balance is not the sum of their lines" "
    SELECT count(*) FROM ratings.accounts a
    WHERE a.balance <> (SELECT coalesce(sum(amount), 0) FROM ratings.lines l
                        WHERE l.account_id = a.account_id)" &&
  none_of "staked games recorded as unstaked, or unstaked games as staked" "
    SELECT count(*) FROM games g JOIN ratings.applied_games a ON a.game_id = g.id
    WHERE $f AND (a.settlement = 'unstaked') <>
          ((SELECT sum(stake) FROM game_seats s WHERE s.game_id = g.id) = 0)" &&
  none_of "games whose money did not move exactly once (or moved when it must not)" "
    SELECT count(*) FROM games g JOIN ratings.applied_games a ON a.game_id = g.id
    WHERE $f AND CASE a.settlement
      WHEN 'settled' THEN
        (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id AND e.kind = 3) <> 1
        OR (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id AND e.kind = 4) <> 1
        OR (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id) <> 2
        OR coalesce((SELECT balance FROM ratings.accounts
                     WHERE account_id = 'pot:' || g.id), 0) <> 0
        OR EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id AND h.state = 2)
      WHEN 'unheld' THEN
        (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id) NOT IN (0, 2)
        OR coalesce((SELECT balance FROM ratings.accounts
                     WHERE account_id = 'pot:' || g.id), 0) <> 0
        OR EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id AND h.state = 2)
      ELSE EXISTS (SELECT 1 FROM ratings.entries e WHERE e.game_id = g.id) END" &&
  none_of "stakers of settled games not netted exactly payout - stake" "
    SELECT count(*) FROM games g
      JOIN ratings.applied_games a ON a.game_id = g.id AND a.settlement = 'settled'
      JOIN game_seats s ON s.game_id = g.id AND NOT s.bot
    WHERE $f AND (SELECT coalesce(sum(l.amount), 0) FROM ratings.lines l
                  JOIN ratings.entries e USING (entry_id)
                  WHERE e.game_id = g.id AND l.account_id = 'player:' || s.player_id)
          <> (g.result -> 'payouts' ->> s.seat::int)::bigint - s.stake"
}

acknowledged_kept() {
  local ok=0 lines logged table seat actions resubscribes
  # shellcheck disable=SC2086  # $1 is a glob
  lines=$(cat $1 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try: j = json.loads(line)
    except ValueError: continue
    if isinstance(j, dict) and "actions" in j and "table" in j:
        print(j["table"], j["seat"], j["actions"], j["resubscribes"])')
  [ "$(echo "$lines" | grep -c .)" -eq "$2" ] || { echo "  expected $2 seat results, found $(echo "$lines" | grep -c .)"; return 1; }
  local rewound=${3:-} lost=0
  while read -r table seat actions resubscribes; do
    logged=$(psql_ "SELECT count(*) FROM game_log WHERE game_id = '$table' AND seat = $seat AND request_id <> ''")
    if [ -n "$rewound" ] && [ "$logged" -lt "$actions" ] && grep -qx "$table" "$rewound"; then
      echo "  table $table seat $seat: $((actions - logged)) acknowledged actions lost; the table was rebuilt"
      lost=$((lost + actions - logged))
    elif [ "$logged" -lt "$actions" ] || [ "$logged" -gt $((actions + resubscribes)) ]; then
      echo "  table $table seat $seat: $actions acknowledged, $logged in the log, $resubscribes breaks"
      ok=1
    fi
  done <<<"$lines"
  [ -z "$rewound" ] || echo "  $lost acknowledged actions of the seat clients lost"
  return $ok
}
