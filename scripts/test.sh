#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the unit and integration
# tests (CTest, against a real PostgreSQL server started here on a free port), the
# rule cases of tests/conformance (a CTest test too) and, when ../shared/conformance
# exists, those cases as well; then the sanitizer builds (scripts/sanitize.sh, while
# the server still runs). Exits non-zero on any failure. MAMLAKA_SANITIZE=0 skips
# the sanitizer builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

pgdir=$(mktemp -d /tmp/mamlaka-test-pg.XXXXXX)
chmod 755 "$pgdir"
port=${MAMLAKA_TEST_PG_PORT:-}  # empty: scripts/pg.sh picks a free one
cleanup() { scripts/pg.sh stop "$pgdir" || true; rm -rf "$pgdir"; }
trap cleanup EXIT
export MAMLAKA_TEST_DATABASE_URL
MAMLAKA_TEST_DATABASE_URL=$(scripts/pg.sh start "$pgdir" $port)

echo "== Unit and integration tests"
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

shared=${MAMLAKA_SHARED:-../shared}
if [ -f "$shared/conformance/cases.jsonl" ]; then
  echo "== Rule cases of $shared/conformance"
  out=$(mktemp)
  build/bin/trix-replay <"$shared/conformance/cases.jsonl" >"$out"
  build/bin/trix-conformance-compare "$shared/conformance/expected.jsonl" "$out"
  rm -f "$out"
fi

if [ "${MAMLAKA_SANITIZE:-1}" != 0 ]; then
  scripts/sanitize.sh
fi
