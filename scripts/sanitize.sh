#!/usr/bin/env bash
# The sanitizer builds of CI (scripts/test.sh runs this after the main tests):
#   build-asan/  the engine, wire, common, pg, table, matchmaking and ratings unit
#                tests and the rule cases under AddressSanitizer +
#                UndefinedBehaviorSanitizer;
#   build-tsan/  the table host (claims and adoptions too) and update stream tests and the ratings consumer and
#                ledger tests (their threads and the hold sweeper) under ThreadSanitizer.
# Only the test targets are built. The pg and store tests need PostgreSQL:
# MAMLAKA_TEST_DATABASE_URL as scripts/test.sh sets it. Exits non-zero on any
# failure or sanitizer report. Both build through ccache (scripts/lib/ccache.sh)
# when it is installed, hash_dir off so that a clone elsewhere shares their objects.
#
#   scripts/sanitize.sh                 # all four steps below, in order
#   scripts/sanitize.sh STEP...         # asan-build, asan-test, tsan-build, tsan-test
#
# scripts/test.sh runs the steps one by one, to time each.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/ccache.sh
. scripts/lib/ccache.sh

jobs=$(nproc)
configure() {  # DIR SANITIZER-FLAGS
  # shellcheck disable=SC2046  # ccache_args is a list of arguments
  cmake -S . -B "$1" -G Ninja $(ccache_args) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_CXX_FLAGS="$2 -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$2" -DCMAKE_SHARED_LINKER_FLAGS="$2" \
    -DMAMLAKA_BUILD_BENCHMARKS=OFF -DMAMLAKA_SANITIZE_GENERATED=OFF >/dev/null
}
# The test binaries of these CMake folders (each names its tests' label).
targets_of() {
  sed -n 's/^trix_[a-z_]*_test(\([a-z_]*\) .*/\1/p; s/^add_executable(\([a-z_]*_test\) .*/\1/p' "$@"
}
tsan_tests="table_host_test table_host_claims_test table_host_adoption_test table_adoptions_test table_update_stream_test ratings_consumer_test ratings_ledger_test"

asan_build() {
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: build"
  configure build-asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  local targets
  targets=$(targets_of engine/CMakeLists.txt proto/wire/CMakeLists.txt \
    services/common/CMakeLists.txt services/pg/CMakeLists.txt \
    services/table/store/CMakeLists.txt \
    services/table/CMakeLists.txt services/matchmaking/CMakeLists.txt \
    services/ratings/CMakeLists.txt)
  # shellcheck disable=SC2086
  cmake --build build-asan -j"$jobs" --target $targets trix-replay trix-conformance-compare \
    trix-rate
}

asan_test() {
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: tests"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 \
    -L '^(engine|wire|common|pg|table|matchmaking|ratings)$' -LE '^integration$' \
    -E '^common_heap_metrics_test'  # tcmalloc's heap figures: ASan has its own allocator
}

tsan_build() {
  echo "== ThreadSanitizer: build"
  configure build-tsan "-fsanitize=thread"
  # shellcheck disable=SC2086
  cmake --build build-tsan -j"$jobs" --target $tsan_tests
  # Abseil's synchronization is uninstrumented here: tell TSan what it orders.
  g++ -std=c++17 -O1 -shared -fPIC tests/sanitizers/absl_sync_annotations.cc \
    -o build-tsan/libabsl_sync_annotations.so -labsl_synchronization -ldl
}

tsan_test() {
  echo "== ThreadSanitizer: tests"
  local t status=0
  for t in $tsan_tests; do
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
      LD_PRELOAD=$PWD/build-tsan/libabsl_sync_annotations.so build-tsan/bin/"$t" || status=1
  done
  return $status
}

[ $# -gt 0 ] || set -- asan-build asan-test tsan-build tsan-test
for step in "$@"; do
  case $step in
    asan-build | asan-test | tsan-build | tsan-test)
      start=$SECONDS
      "${step/-/_}"
      echo "$step: $((SECONDS - start)) s"
      ;;
    *)
      echo "usage: $0 [asan-build|asan-test|tsan-build|tsan-test]..." >&2
      exit 2
      ;;
  esac
done
