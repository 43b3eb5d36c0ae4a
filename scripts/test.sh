#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the unit and integration
# tests (CTest, against a real PostgreSQL server started here on a free port), the
# rule cases of tests/conformance (a CTest test too) and, when ../shared/conformance
# exists, those cases as well; then the sanitizer builds (scripts/sanitize.sh, while
# the server still runs). MAMLAKA_SANITIZE=0 skips the sanitizer builds;
# MAMLAKA_SANITIZE_BESIDE=1 builds them beside the main tests, at a lower priority
# (in one run 10 minutes of building hidden behind the tests, but timing-bound tests
# failed that way on the shared 2-core machine: docs/experiments/2026-12-07-ci-test-run.md).
# Beside the main tests runs the container stack test (tests/deploy/stack_test.sh:
# the images of the programs just built, the compose stack, games through
# matchmaking, a table service killed under one), one test in the counts; it starts
# dockerd when none runs, and stops it after. No Docker fails it;
# MAMLAKA_STACK=0 skips it.
#
# Each phase is timed; the run ends with a table of the phases and their wall
# times, and its last line is the count of tests, "N passed, N failed" (the CTest
# tests of the main and ASan runs, the TSan binaries' test cases, the shared rule
# cases as one; a phase that fails without counting tests, a build, counts as one
# failed). A failed build ends the run; failed tests do not, the later phases
# still run. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d /tmp/mamlaka-test-logs.XXXXXX)
pgdir=
builds=  # the background sanitizer builds' pid
sanitize=${MAMLAKA_SANITIZE:-1}
beside=${MAMLAKA_SANITIZE_BESIDE:-0}
stack=${MAMLAKA_STACK:-1}
stacker=  # the background stack test's pid
phases=()  # "name seconds result" rows, in order
passed=0
failed=0
status=0

# phase NAME COMMAND...: runs COMMAND, times it and adds the row. Its tests are
# counted by the COMMAND itself (add_counts); a failure counted nowhere else counts
# as one.
phase() {
  local name=$1 start=$SECONDS rc=0 before=$failed
  shift
  "$@" || rc=$?
  record "$name" $((SECONDS - start)) "$rc" "$before"
}
# record NAME SECONDS EXIT-STATUS FAILED-BEFORE: adds the row; returns EXIT-STATUS.
record() {
  local result=ok
  if [ "$3" -ne 0 ]; then
    status=1
    [ "$failed" -gt "$4" ] || failed=$((failed + 1))
    result="failed (exit $3)"
  fi
  phases+=("$1|$2|$result")
  return "$3"
}
skipped() { phases+=("$1|-|skipped: $2"); }

# add_counts LOG: adds CTest's summary line ("97% tests passed, 3 tests failed out
# of 312") of LOG to the totals.
add_counts() {
  local line total bad
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -1)
  [ -n "$line" ] || return 0
  bad=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  passed=$((passed + total - bad))
  failed=$((failed + bad))
}

# add_gtest_counts LOG: the same for googletest binaries run one after another
# ("[  PASSED  ] 18 tests." / "[  FAILED  ] 2 tests, listed below:").
add_gtest_counts() {
  local n
  while read -r n; do passed=$((passed + n)); done < <(
    sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$1")
  while read -r n; do failed=$((failed + n)); done < <(
    sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below.*/\1/p' "$1")
}

# As many tests at once as cores (MAMLAKA_TEST_JOBS: another number). Most tests
# wait on processes, PostgreSQL and the clock (at -j2 the two cores were 16% busy),
# and -j4 took 486 s against 648 s, but timing-bound tests failed in two of three
# -j4 runs from a clean clone (docs/experiments/2026-12-07-ci-test-run.md). Tests
# that need more to themselves say so in their CMakeLists.txt (RESOURCE_LOCK,
# PROCESSORS).
main_tests() {
  ctest --test-dir build --output-on-failure -j"${MAMLAKA_TEST_JOBS:-$(nproc)}" --timeout 600 2>&1 |
    tee "$logs/tests.log"
  local rc=${PIPESTATUS[0]}
  add_counts "$logs/tests.log"
  return "$rc"
}

shared_cases() {
  local out=$logs/replay.jsonl
  if build/bin/trix-replay <"$shared/conformance/cases.jsonl" >"$out" &&
     build/bin/trix-conformance-compare "$shared/conformance/expected.jsonl" "$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    return 1
  fi
}

asan_tests() {
  scripts/sanitize.sh asan-test 2>&1 | tee "$logs/asan.log"
  local rc=${PIPESTATUS[0]}
  add_counts "$logs/asan.log"
  return "$rc"
}

tsan_tests() {
  scripts/sanitize.sh tsan-test 2>&1 | tee "$logs/tsan.log"
  local rc=${PIPESTATUS[0]}
  local before=$failed
  add_gtest_counts "$logs/tsan.log"
  # A binary that stopped on a report prints no summary: count it.
  if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then failed=$((failed + 1)); fi
  return "$rc"
}

# The sanitizer builds, one after the other, in the background (beside the main
# tests with MAMLAKA_SANITIZE_BESIDE=1, which leave the cores mostly idle): each
# writes its log, and its exit status and seconds to LOG.done.
sanitizer_builds() {
  local step start rc
  for step in asan-build tsan-build; do
    start=$SECONDS
    rc=0
    nice -n 10 scripts/sanitize.sh "$step" >"$logs/$step.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$logs/$step.done"
  done
}
# built NAME STEP: waits for the background STEP, shows its log (all of it when it
# failed), adds its row with its own wall time; returns its exit status.
built() {
  local rc secs
  while [ ! -f "$logs/$2.done" ]; do
    kill -0 "$builds" 2>/dev/null || { echo "1 0" >"$logs/$2.done"; break; }
    sleep 1
  done
  read -r rc secs <"$logs/$2.done"
  if [ "$rc" -eq 0 ]; then tail -2 "$logs/$2.log"; else cat "$logs/$2.log"; fi
  [ "$beside" = 0 ] || secs="$secs (beside)"
  record "$1" "$secs" "$rc" "$failed"
}

# The Docker engine for the stack test: the running one, or a dockerd started here
# (its pid in dockerd.pid, its log in dockerd.log; docker_down stops it).
docker_up() {
  local pid
  /usr/bin/docker info >/dev/null 2>&1 && return 0
  command -v dockerd >/dev/null || { echo "stack: no dockerd (docker.io)" >&2; return 1; }
  dockerd >"$logs/dockerd.log" 2>&1 &
  pid=$!
  echo "$pid" >"$logs/dockerd.pid"
  for _ in $(seq 1 60); do
    /usr/bin/docker info >/dev/null 2>&1 && { echo "stack: started dockerd (pid $pid)"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "stack: dockerd did not start:" >&2
  tail -n 20 "$logs/dockerd.log" >&2
  return 1
}
docker_down() {
  local pid
  [ -f "$logs/dockerd.pid" ] || return 0
  pid=$(cat "$logs/dockerd.pid")
  rm -f "$logs/dockerd.pid"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  echo "stack: dockerd (pid $pid) did not stop in 30 s" >&2
}

# The container stack test, in the background beside the main tests (their
# processes, PostgreSQL and clocks leave the cores mostly idle): the images are
# packed from build/bin (seconds with the layer cache warm, no compile); writes its
# log, and its exit status and seconds to stack.done.
stack_test() {
  local start=$SECONDS rc=0
  # 15 minutes at most (some 3 warm): a hung container does not hold up the run.
  { docker_up && BINARIES=build/bin timeout -k 60 900 tests/deploy/stack_test.sh; } \
    >"$logs/stack.log" 2>&1 || rc=$?
  echo "$rc $((SECONDS - start))" >"$logs/stack.done"
}
# stack_done: waits for the stack test, shows its log (all of it when it failed),
# adds its row (one test) with its own wall time.
stack_done() {
  local rc secs
  wait "$stacker" 2>/dev/null || true
  stacker=
  [ -f "$logs/stack.done" ] || echo "1 0" >"$logs/stack.done"
  read -r rc secs <"$logs/stack.done"
  if [ "$rc" -eq 0 ]; then
    grep '^stack' "$logs/stack.log"
    passed=$((passed + 1))
  else
    cat "$logs/stack.log"
  fi
  docker_down
  record "stack" "$secs (beside)" "$rc" "$failed"
}

# sanitizer_build NAME STEP: the STEP's row, built in the background or now.
sanitizer_build() {
  if [ "$beside" != 0 ]; then built "$@"; else phase "$1" scripts/sanitize.sh "$2"; fi
}

report() {
  local row name secs result total=$((SECONDS - run_start))
  echo
  echo "== Phases (wall time)"
  printf '%-18s %9s  %s\n' phase time result
  for row in "${phases[@]}"; do
    IFS='|' read -r name secs result <<<"$row"
    case $secs in
      -) ;;
      *' (beside)') secs=${secs% *}; secs="($(printf '%d:%02d' $((secs / 60)) $((secs % 60))))" ;;
      *) secs=$(printf '%d:%02d' $((secs / 60)) $((secs % 60))) ;;
    esac
    printf '%-18s %9s  %s\n' "$name" "$secs" "$result"
  done
  printf '%-18s %9s\n' total "$(printf '%d:%02d' $((total / 60)) $((total % 60)))"
  if [[ "${phases[*]}" == *' (beside)|'* ]]; then
    echo "(m:ss): ran beside the main tests, inside the total but not after them"
  fi
  echo "$passed passed, $failed failed"
}

finish() {
  local rc=$?
  [ -z "$builds" ] || wait "$builds" 2>/dev/null || true
  [ -z "$stacker" ] || wait "$stacker" 2>/dev/null || true
  docker_down
  if [ -n "$pgdir" ]; then
    scripts/pg.sh stop "$pgdir" >/dev/null 2>&1 || true
    rm -rf "$pgdir"
  fi
  rm -rf "$logs"
  [ "$rc" -eq 0 ] || status=1
  # Stopped by something outside the phases (PostgreSQL would not start): one failure.
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  report
  exit "$status"
}
run_start=$SECONDS
trap finish EXIT

phase install scripts/install-deps.sh
phase build scripts/build.sh

pgdir=$(mktemp -d /tmp/mamlaka-test-pg.XXXXXX)
chmod 755 "$pgdir"
port=${MAMLAKA_TEST_PG_PORT:-}  # empty: scripts/pg.sh picks a free one
export MAMLAKA_TEST_DATABASE_URL
# shellcheck disable=SC2086  # no port: no argument
MAMLAKA_TEST_DATABASE_URL=$(scripts/pg.sh start "$pgdir" $port)

if [ "$sanitize" != 0 ] && [ "$beside" != 0 ]; then
  sanitizer_builds &
  builds=$!
fi
if [ "$stack" != 0 ]; then
  stack_test &
  stacker=$!
fi

echo "== Unit and integration tests"
phase tests main_tests || true

if [ "$stack" != 0 ]; then
  echo "== The container stack (beside the tests; tests/deploy/stack_test.sh)"
  stack_done || true
else
  skipped stack "MAMLAKA_STACK=0"
fi

shared=${MAMLAKA_SHARED:-../shared}
if [ -f "$shared/conformance/cases.jsonl" ]; then
  echo "== Rule cases of $shared/conformance"
  phase "shared rule cases" shared_cases || true
fi

if [ "$sanitize" != 0 ]; then
  echo "== Sanitizer builds"
  if sanitizer_build "ASan build" asan-build; then
    phase "ASan tests" asan_tests || true
  else
    skipped "ASan tests" "the build failed"
  fi
  if sanitizer_build "TSan build" tsan-build; then
    phase "TSan tests" tsan_tests || true
  else
    skipped "TSan tests" "the build failed"
  fi
else
  for p in "ASan build" "ASan tests" "TSan build" "TSan tests"; do
    skipped "$p" "MAMLAKA_SANITIZE=0"
  done
fi
