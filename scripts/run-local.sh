#!/usr/bin/env bash
# The main job: install what is missing, build, and play a whole game of Trix
# between four autopilot seats on the engine, printing the table as it goes and the
# result at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bin/trix-selfplay --mode "${MODE:-complex-partner}" --seed "${SEED:-$RANDOM}" \
  --stakes 100,0,300,0
