#!/usr/bin/env bash
# trix-rate as a program: one output line per case in input order, 17 significant
# digits, an error line (not a crash) for each malformed case, exit status 0.
#   trix_rate_test.sh build/bin/trix-rate
set -euo pipefail
bin=${1:?path to trix-rate}
input=$(mktemp)
trap 'rm -f "$input"' EXIT
{
  echo '{"id":"ffa","teams":[[{}],[{}],[{}],[{}]],"ranks":[1,2,3,4],"options":{"tau":0}}'
  echo 'this is not json'
  echo ''
  printf '{"id":"deep","teams":%s\n' "$(printf '[%.0s' $(seq 1 5000))"
  printf '\xff\xfe{"id":7}\n'
  echo '{"id":"teams","teams":[[{"mu":29.182,"sigma":4.782},{"mu":27.174,"sigma":4.922}],[{"mu":16.672,"sigma":6.217},{}]]}'
  echo '{"id":["odd"],"teams":[[{}],[{}]],"scores":[3,"x"]}'
} >"$input"
output=$("$bin" <"$input")
python3 - "$output" <<'PY'
import json, sys
lines = sys.argv[1].split("\n")
assert len(lines) == 6, lines
out = [json.loads(l) for l in lines]
assert out[0]["id"] == "ffa" and out[0]["teams"][0][0]["mu"] == 27.795084971874736, out[0]
assert '"mu":27.795084971874736,"sigma":8.2631607576134769' in lines[0], lines[0]
assert "error" in out[1] and out[1]["id"] is None, out[1]
assert "error" in out[2] and "error" in out[3], (out[2], out[3])
t = out[4]["teams"]
assert out[4]["id"] == "teams" and t[0][0]["mu"] == 29.607340941337068 and t[1][1]["sigma"] == 8.111707446126035, out[4]
assert out[5]["id"] == ["odd"] and "error" in out[5], out[5]
print("trix-rate: ok")
PY
