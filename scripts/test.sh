#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the unit and integration
# tests (CTest, against a real PostgreSQL server started here) and the public rule
# conformance cases. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

pgdir=$(mktemp -d /tmp/mamlaka-test-pg.XXXXXX)
chmod 755 "$pgdir"
port=${MAMLAKA_TEST_PG_PORT:-55432}
cleanup() { scripts/pg.sh stop "$pgdir" || true; rm -rf "$pgdir"; }
trap cleanup EXIT
export MAMLAKA_TEST_DATABASE_URL
MAMLAKA_TEST_DATABASE_URL=$(scripts/pg.sh start "$pgdir" "$port")

echo "== Unit and integration tests"
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

echo "== Rule conformance cases"
shared=${MAMLAKA_SHARED:-../shared}
if [ -f "$shared/conformance/cases.jsonl" ]; then
  out=$(mktemp)
  build/bin/trix-replay <"$shared/conformance/cases.jsonl" >"$out"
  python3 "$shared/conformance/compare.py" "$shared/conformance/expected.jsonl" "$out"
  rm -f "$out"
else
  echo "no conformance cases at $shared/conformance (set MAMLAKA_SHARED)" >&2
  exit 1
fi
