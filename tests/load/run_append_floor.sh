#!/usr/bin/env bash
# What PostgreSQL's CPU is for the smallest durable append of an action, at a
# player's pace (docs/experiments/2026-12-02-floors-grpc-and-append.md): a throwaway server
# (scripts/pg.sh, as the load tests run it: fsync and synchronous commit on) with a
# stripped-down games table (1,000 running games) and game log, and pgbench
# committing one statement per action, as the table service's lone append does:
# the game's row updated (its length and deadline, checked against its lease) and
# the action's entry inserted. No lease renewals, no deals, no heartbeats, fewer
# columns and indexes than the real tables: the table service's PostgreSQL cost at
# that rate can only be higher.
#
#   tests/load/run_append_floor.sh            # 300 appends/s for 20 s
#   tests/load/run_append_floor.sh 1000 30
#
# Prints PostgreSQL's cores (user and system, every backend and auxiliary process
# of the server) over the run's middle, and µs per append; and pgbench's own, the
# client's side of one append per action.
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-300}
seconds=${2:-20}
command -v pgbench >/dev/null || { echo "run_append_floor.sh: pgbench is missing" >&2; exit 2; }

dir=$(mktemp -d)
chmod 755 "$dir"
cleanup() { scripts/pg.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
url=$(scripts/pg.sh start "$dir")

psql "$url" -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE games (
  id text PRIMARY KEY, log_length int8 NOT NULL DEFAULT 0, deadline timestamptz,
  lease_owner text NOT NULL, lease_until timestamptz NOT NULL, finished timestamptz
) WITH (fillfactor = 80);
CREATE TABLE game_log (
  game_id text NOT NULL REFERENCES games (id), idx int8 NOT NULL, seat int2,
  request_id text, payload bytea, response bytea, time timestamptz,
  PRIMARY KEY (game_id, idx));
INSERT INTO games (id, lease_owner, lease_until)
SELECT '3f6c1a2e-0000-4000-8000-' || lpad(i::text, 12, '0'), 'floor',
       now() + interval '1 day'
FROM generate_series(1, 1000) AS i;
SQL

cat >"$dir/append.sql" <<'SQL'
\set g random(1, 1000)
WITH game AS (UPDATE games AS g SET deadline = now() + interval '1 minute', log_length = g.log_length + 1 WHERE g.id = '3f6c1a2e-0000-4000-8000-' || lpad(:g::text, 12, '0') AND g.lease_owner = 'floor' AND g.lease_until > now() AND g.finished IS NULL RETURNING g.log_length - 1 AS length) INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time) SELECT '3f6c1a2e-0000-4000-8000-' || lpad(:g::text, 12, '0'), length, 2, 'r-0000000000000041', '\x0a1208021a0251482203080a0c2a0a0a08080210011801', '\x0a06080210011801', now() FROM game;
SQL

postmaster=$(head -1 "$dir/data/postmaster.pid")
ticks() {  # user and system clock ticks of the processes named
  local user=0 sys=0 p
  for p in "$@"; do
    read -r u s < <(cut -d' ' -f14,15 "/proc/$p/stat" 2>/dev/null || echo "0 0")
    user=$((user + u)); sys=$((sys + s))
  done
  echo "$user $sys"
}

pgbench -n -M prepared -c 1 -R "$rate" -T "$seconds" -f "$dir/append.sql" "$url" \
  >"$dir/pgbench.out" 2>&1 &
bench=$!
quarter=$((seconds / 4))
sleep "$quarter"
server=("$postmaster" $(pgrep -P "$postmaster"))
read -r u0 s0 < <(ticks "${server[@]}")
read -r cu0 cs0 < <(ticks "$bench")
start=$(date +%s.%N)
window=$((seconds / 2))
sleep "$window"
read -r u1 s1 < <(ticks "${server[@]}")
read -r cu1 cs1 < <(ticks "$bench")
end=$(date +%s.%N)
wait "$bench"
hz=$(getconf CLK_TCK)
python3 - "$u0" "$s0" "$u1" "$s1" "$cu0" "$cs0" "$cu1" "$cs1" "$start" "$end" "$hz" \
  "$rate" <<'PY'
import sys
u0, s0, u1, s1, cu0, cs0, cu1, cs1 = map(int, sys.argv[1:9])
start, end, hz, rate = float(sys.argv[9]), float(sys.argv[10]), int(sys.argv[11]), float(sys.argv[12])
wall = end - start
for name, du, ds in (("postgres", u1 - u0, s1 - s0), ("pgbench (the client)", cu1 - cu0, cs1 - cs0)):
    user, system = du / hz / wall, ds / hz / wall
    print(f"{name}: {user + system:.3f} cores (user {user:.3f}, system {system:.3f}), "
          f"{(user + system) / rate * 1e6:.0f} us per append at {rate:.0f}/s")
PY
grep -E "^(tps|latency average|number of transactions actually)" "$dir/pgbench.out"
