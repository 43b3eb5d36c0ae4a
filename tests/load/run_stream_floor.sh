#!/usr/bin/env bash
# What one open Play stream costs in gRPC alone, the floor under the table
# service's streams (docs/benchmarks.md, "Memory per hosted table"): starts
# build/bin/grpc-floor's server with --heap_every=1s, drives it with 1,000 tables of
# four Play streams at RATE actions/s (15 s warm-up, 10 s window), closes the
# streams, and prints the server's heap in use per stream (with the streams open
# minus after they closed). API is the server's gRPC API: callback (the table
# service's) or cq; further arguments go to the server.
#
#   tests/load/run_stream_floor.sh                      # 2,000 actions/s, callback
#   tests/load/run_stream_floor.sh 1 cq                 # idle streams, completion queue
#   tests/load/run_stream_floor.sh 2000 callback --stream_lookahead=8192
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-2000}
api=${2:-callback}
shift $(($# < 2 ? $# : 2))
port=${FLOOR_PORT:-50601}
[ -x build/bin/grpc-floor ] || { echo "run_stream_floor.sh: run scripts/build.sh" >&2; exit 2; }
dir=$(mktemp -d)
build/bin/grpc-floor --serve="127.0.0.1:$port" --api="$api" --heap_every=1s "$@" \
  >"$dir/heap" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; rm -rf "$dir"' EXIT
sleep 2
kill -0 "$server" 2>/dev/null || { echo "run_stream_floor.sh: the server did not start" >&2; exit 1; }
build/bin/grpc-floor --drive="127.0.0.1:$port" --server_pid="$server" --tables=1000 \
  --rate="$rate" --warmup=15s --duration=10s | head -1
sleep 3
python3 - "$dir/heap" <<'PY'
import sys
rows = [tuple(int(x) for x in line.split()[1::2])
        for line in open(sys.argv[1]) if line.startswith("heap_bytes")]
opened = [r for r in rows if r[1] == 4000][-1]
closed = [r for r in rows[rows.index(opened):] if r[1] == 0][0]
print("heap idle %.1f MiB, 4,000 streams open %.1f MiB, closed %.1f MiB: %.1f KiB a stream"
      % (rows[0][0] / 2**20, opened[0] / 2**20, closed[0] / 2**20,
         (opened[0] - closed[0]) / 4000 / 1024))
PY
