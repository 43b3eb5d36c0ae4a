#!/usr/bin/env bash
# What the table service's Play traffic costs in gRPC alone
# (docs/experiments/2026-12-02-floors-grpc-and-append.md): starts build/bin/grpc-floor's
# server on loopback, drives it with 1,000 tables of four Play streams at RATE
# actions/s, prints the server's CPU, and stops it. API is the server's gRPC API:
# callback (the table service's) or cq.
#
#   tests/load/run_grpc_floor.sh                 # 300 actions/s, callback API
#   tests/load/run_grpc_floor.sh 3000 cq
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-300}
api=${2:-callback}
port=${FLOOR_PORT:-50600}
[ -x build/bin/grpc-floor ] || { echo "run_grpc_floor.sh: run scripts/build.sh" >&2; exit 2; }
build/bin/grpc-floor --serve="127.0.0.1:$port" --api="$api" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
sleep 1
kill -0 "$server" 2>/dev/null || { echo "run_grpc_floor.sh: the server did not start" >&2; exit 1; }
build/bin/grpc-floor --drive="127.0.0.1:$port" --server_pid="$server" --tables=1000 \
  --rate="$rate" --warmup=10s --duration=20s
