#!/usr/bin/env bash
# GPU check for the CUDA and NCCL backends, for a short lease on a
# bare CUDA machine (CMake, ninja, a C++20 compiler, nvcc, NCCL; none of our
# Debian packages, no package registry):
#   1. configure with -DMICRODDP_GPU_CHECK_ONLY=ON (tests/cuda/gpu_check.cmake):
#      only kernels/cpu, kernels/cuda, the core the CUDA backends need,
#      core/cuda and tests/cuda, with fmt, nlohmann-json and
#      doctest taken from the carried folder .gpu-deps/include;
#   2. build test_cuda and gpu_bench; 3. run every CUDA / NCCL suite (ctest
#   -L cuda), among them cuda.cuda_protocols: --protocol ll and ll128 on the
#   CUDA backend (kernels storing flagged lines, core/exec/cuda/cuda_lines.h)
#   against the threads backend's bits, every dtype and op on sizes 0 ..
#   30001 elements, every collective and algorithm; 4. run the short GPU
#   bench (tests/cuda/gpu_bench.cpp), whose section 6 times ring all_reduce
#   with each protocol; 5. print a table, with one row per protocol.
#   Target: under 6 minutes on one H100 / H200 (the device lease is 15).
#
# Usage:
#   scripts/gpu-check.sh --prepare   # HERE (Debian dev machine): copy the
#                                    # headers into .gpu-deps/ (git-ignored)
#   scripts/gpu-check.sh             # THERE: build, test, bench, table
# Environment: BUILD (default build-gpu), MICRODDP_GPU_DEPS (default
# .gpu-deps), NCCL_HOME, BENCH_ARGS (default "--ranks 8 --max-mib 1024").
#
# The device-tool call (after `scripts/gpu-check.sh --prepare` here):
#   run  command: "scripts/gpu-check.sh 2>&1 | tee $OUT/gpu-check.log; exit ${PIPESTATUS[0]}"
#        carry:   [".gpu-deps"]
#        timeout_s: 540   (the script aims at 6 minutes; the lease is 15 in all)
#
# Exit status: 0 all suites passed and the bench ran with correct outputs;
# 77 no CUDA device (the build is still done and checked; the table says
# "no CUDA device"); 1 anything failed (the table says what).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS=${MICRODDP_GPU_DEPS:-$ROOT/.gpu-deps}

if [[ "${1:-}" == "--prepare" ]]; then
  rm -rf "$DEPS"; mkdir -p "$DEPS/include"
  for d in fmt nlohmann doctest; do
    [[ -d /usr/include/$d ]] || { echo "error: /usr/include/$d is missing (apt-get install libfmt-dev nlohmann-json3-dev doctest-dev)"; exit 1; }
    cp -r "/usr/include/$d" "$DEPS/include/"
  done
  # licences travel with the headers (all MIT)
  mkdir -p "$DEPS/licenses"
  for p in libfmt-dev nlohmann-json3-dev doctest-dev; do
    [[ -f /usr/share/doc/$p/copyright ]] && cp "/usr/share/doc/$p/copyright" "$DEPS/licenses/$p.copyright"
  done
  echo "prepared $DEPS ($(du -sh "$DEPS" | cut -f1)); carry it: carry: [\".gpu-deps\"]"
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/gpu-check.sh [--prepare]"; exit 2
fi

BUILD=${BUILD:-build-gpu}
BENCH_ARGS=${BENCH_ARGS:---ranks 8 --max-mib 1024}
start=$(date +%s)
rows=()   # "name|result|detail"
row() { rows+=("$1|$2|$3"); }
table() {
  echo
  echo "================ gpu-check: CUDA and NCCL ================"
  printf '%-22s %-14s %s\n' "item" "result" "detail"
  for r in "${rows[@]}"; do IFS='|' read -r a b c <<<"$r"; printf '%-22s %-14s %s\n' "$a" "$b" "$c"; done
  echo "elapsed: $(( $(date +%s) - start )) s"
}
fail() { row "$1" FAILED "$2"; table; exit 1; }

[[ -f "$DEPS/include/fmt/format.h" ]] || fail deps "$DEPS/include is missing: run scripts/gpu-check.sh --prepare where the Debian packages are, and carry .gpu-deps"

# nvcc: PATH, then the usual install folders.
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    [[ -x $d/nvcc ]] && { export PATH="$d:$PATH"; break; }
  done
fi
command -v nvcc >/dev/null || fail nvcc "no nvcc on PATH or in /usr/local/cuda*/bin"
row nvcc ok "$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') ($(command -v nvcc))"

# NCCL: NCCL_HOME, the CUDA toolkit, the system, then a pip wheel
# (nvidia-nccl-cu*: lib/libnccl.so.2 and, usually, include/nccl.h).
nccl_inc="" nccl_lib=""
cuda_root=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
py_nccl=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
for d in ${NCCL_HOME:-} "$cuda_root" /usr/local/cuda /usr /usr/local ${py_nccl}; do
  [[ -z "$nccl_inc" && -f $d/include/nccl.h ]] && nccl_inc=$d/include
  for l in $d/lib/libnccl.so $d/lib64/libnccl.so $d/lib/x86_64-linux-gnu/libnccl.so $d/lib/libnccl.so.2 \
           $d/lib64/libnccl.so.2 $d/lib/x86_64-linux-gnu/libnccl.so.2; do
    [[ -z "$nccl_lib" && -e $l ]] && nccl_lib=$l
  done
done
[[ -n "$nccl_inc" && -n "$nccl_lib" ]] || fail nccl "nccl.h (${nccl_inc:-not found}) / libnccl (${nccl_lib:-not found}); set NCCL_HOME"
export LD_LIBRARY_PATH="$(dirname "$nccl_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
row nccl ok "$nccl_lib"

GEN=Ninja; command -v ninja >/dev/null || GEN="Unix Makefiles"
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -G "$GEN" -DMICRODDP_GPU_CHECK_ONLY=ON -DMICRODDP_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DMICRODDP_GPU_DEPS="$DEPS" -DNCCL_INCLUDE_DIR="$nccl_inc" -DNCCL_LIBRARY="$nccl_lib" \
  >"$BUILD/configure.log" 2>&1 || { tail -30 "$BUILD/configure.log"; fail configure "see $BUILD/configure.log"; }
row configure ok "$GEN, GPU-check-only mode, deps $DEPS"
t0=$(date +%s)
cmake --build "$BUILD" --target test_cuda gpu_bench -j"$(nproc)" >"$BUILD/build.log" 2>&1 ||
  { tail -40 "$BUILD/build.log"; fail build "see $BUILD/build.log"; }
row build ok "test_cuda gpu_bench in $(( $(date +%s) - t0 )) s"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"
no_device=""
# test_cuda exits 77 before running any suite when there is no device.
prc=0; "$BUILD/test_cuda" --test-suite=no_such_suite_probe >"$BUILD/probe.log" 2>&1 || prc=$?
if [[ $prc -eq 77 ]]; then
  no_device=$(sed -n 's/^SKIPPED: //p' "$BUILD/probe.log" | head -1)
  no_device=${no_device:-no CUDA device}
fi

rc=0
( cd "$BUILD" && ctest -L cuda --output-on-failure --timeout 300 ) >"$BUILD/ctest.log" 2>&1 || rc=1
cat "$BUILD/ctest.log"
while read -r s res; do
  detail=""; [[ "$res" == Skipped || "$res" == "Not Run" ]] && detail="${no_device:-see $BUILD/ctest.log}"
  row "$s" "$res" "$detail"
done < <(grep -E "Test +#[0-9]+: cuda\." "$BUILD/ctest.log" | sed -E 's/.*: (cuda\.[a-z_]+) \.+ *\**([A-Za-z ]+[A-Za-z]).*/\1 \2/')
grep -qE "Test +#[0-9]+: cuda\." "$BUILD/ctest.log" || { rc=1; row ctest FAILED "no cuda.* suite ran; see $BUILD/ctest.log"; }

echo
echo "---- gpu_bench $BENCH_ARGS ----"
brc=0
# shellcheck disable=SC2086
timeout 240 "$BUILD/gpu_bench" $BENCH_ARGS 2>&1 | tee "$BUILD/gpu_bench.log" || brc=${PIPESTATUS[0]}
# one row per protocol: "protocol ll ok 4 KiB 12.3 us (0.45x simple), 16 MiB ..."
while read -r _ p res detail; do
  [[ "$res" == ok ]] && row "protocol $p" ok "ring all_reduce: $detail" || { rc=1; row "protocol $p" FAILED "$detail"; }
done < <(grep -E '^protocol (simple|ll|ll128) ' "$BUILD/gpu_bench.log")
case $brc in
  0)  grep -qE '^protocol ll128 ' "$BUILD/gpu_bench.log" || { rc=1; row protocols FAILED "gpu_bench printed no protocol rows"; }
      row gpu_bench ok "$(grep -E '%  +ok$' "$BUILD/gpu_bench.log" | tail -1 | awk '{print "ring", $1, $2 ": moved/d2d", $(NF-1)}')";;
  77) row gpu_bench SKIPPED "${no_device:-no CUDA device}";;
  *)  rc=1; row gpu_bench FAILED "exit $brc; see $BUILD/gpu_bench.log";;
esac

if [[ -n "$no_device" ]]; then
  row RESULT "no CUDA device" "$no_device: built and linked; GPU suites and bench SKIPPED, not passed"
  table; [[ $rc -eq 0 ]] && exit 77 || exit 1
fi
row RESULT "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" ""
table
exit $rc
