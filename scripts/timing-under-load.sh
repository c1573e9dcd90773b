#!/usr/bin/env bash
# The suites whose checks involve measured time, run ROUNDS times in a row
# while a parallel build of this tree keeps every core busy (the situation
# in which `make test` once failed). Prints one line per round and the count.
#   scripts/timing-under-load.sh [BUILD_DIR] [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/release}
ROUNDS=${2:-10}
# Every lesson run and lesson suite (07: overlap, exposed communication), the DDP
# suites and view, the hang lab, the threads executor's delayed runs, and the
# MPI fault and clock tests.
REGEX=${TIMING_REGEX:-'lessons\.(lesson_|run\.)|core\.(ddp|hang|delay|race_demo|executor|stepped)|mpi\.fault|mpi\.pingpong_clock|app\.ddp_view'}
[ -x "$BUILD/tests/test_core" ] || { echo "error: build $BUILD first (make build)"; exit 2; }

load=$(mktemp -d)
cores=$(nproc)
# A real parallel build, restarted whenever it finishes, with no compiler
# cache, in its own process group so that it can be stopped whole.
setsid bash -c '
  export CCACHE_DISABLE=1
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMICRODDP_BUILD_APP=OFF -DMICRODDP_CUDA=OFF >/dev/null 2>&1
  while :; do
    cmake --build "$1" -j "$2" >/dev/null 2>&1
    cmake --build "$1" --target clean >/dev/null 2>&1
  done' loader "$load" "$((cores + 1))" &
loader=$!
trap 'kill -- -$loader 2>/dev/null; sleep 1; rm -rf "$load"' EXIT
sleep 5
passed=0
for i in $(seq 1 "$ROUNDS"); do
  t0=$(date +%s)
  if (cd "$BUILD" && ctest -j "$cores" -R "$REGEX" --output-on-failure >"/tmp/timing-round-$i.log" 2>&1); then
    passed=$((passed + 1)); verdict=passed
  else
    verdict="FAILED (log: /tmp/timing-round-$i.log)"
  fi
  load1=$(cut -d' ' -f1 /proc/loadavg)
  echo "round $i: $verdict in $(( $(date +%s) - t0 )) s, load average $load1, $(grep -c 'Test *#' "/tmp/timing-round-$i.log") suites"
done
echo "timing-sensitive suites under a parallel build: $passed of $ROUNDS rounds passed"
[ "$passed" -eq "$ROUNDS" ]
