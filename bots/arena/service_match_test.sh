#!/usr/bin/env bash
# CTest service_match_test: a tiny match through the real services end to end
# (scripts/service-match.sh: PostgreSQL, two table services, ratings, matchmaking;
# every seat a trix-bot process): search against the heuristic, one game each way
# round, search on a small budget. Checks that the report is well-formed, that each
# game was booked as planned (the party of one strategy against two bot accounts of
# the other, team totals summing to zero) and rated, and that each of the four bot
# accounts was rated for the one game it played.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/mamlaka-service-match-test.XXXXXX)
# The logs of every process are kept when the test fails.
trap 'status=$?; if [ $status -eq 0 ]; then rm -rf "$work"; else echo "logs in $work" >&2; fi' EXIT
LOG_DIR=$work/logs "$root/scripts/service-match.sh" --games=2 --tables=2 --a=search \
  --b=heuristic --search_budget=5ms --search_samples=40 --json="$work/report.json" \
  --timeout=2m | tee "$work/report.txt"
grep -q "cannot be duplicated" "$work/report.txt"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "complex-partner" and r["a"] == "search" and r["b"] == "heuristic", r
assert r["games"] == 2 and r["rated"] == 2 and r["duplicate_deals"] is False, r
games = r["game_list"]
assert sorted(g["party"] for g in games) == ["a", "b"], games
for g in games:
    assert g["rated"] and g["a"] + g["b"] == 0, g
p = r["points"]
for side in "ab":
    assert p[side]["all"]["n"] == 2 and p[side]["as_party"]["n"] == 1, p
    assert p[side]["as_bots"]["n"] == 1, p
    mean = sum(g[side] for g in games) / 2
    assert abs(p[side]["all"]["mean"] - mean) < 1e-9, p
margin = sum(g["a"] - g["b"] for g in games) / 2
assert abs(p["margin"]["mean"] - margin) < 1e-9, p
bots = r["bot_accounts"]
assert sorted(b["strategy"] for b in bots) == ["heuristic"] * 2 + ["search"] * 2, bots
assert all(b["games"] == 1 for b in bots), bots
print("service_match_test: report well-formed, 2 games booked and rated")
PY
