#!/usr/bin/env bash
# GPU check for the CUDA and NCCL backends (issue 7): configure with CUDA ON,
# build only test_cuda (kernels/cuda, core/cuda and what they link), run
# every CUDA / NCCL suite, print a table. Needs: cmake >= 3.25, ninja (or
# make), a C++20 compiler, nvcc + NCCL, and the headers/libraries the
# top-level CMakeLists.txt insists on (fmt, nlohmann-json, yaml-cpp, doctest).
# On a bare CUDA machine point CMAKE_PREFIX_PATH / CPATH at carried copies
# (MICRODDP_DEPS=<dir> with include/ and lib/ is added to both).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
GEN=Ninja; command -v ninja >/dev/null || GEN="Unix Makefiles"
extra=()
if [[ -n "${MICRODDP_DEPS:-}" ]]; then
  export CPATH="${MICRODDP_DEPS}/include:${CPATH:-}"
  extra+=(-DCMAKE_PREFIX_PATH="${MICRODDP_DEPS}")
fi
start=$(date +%s)
cmake -S . -B "$BUILD" -G "$GEN" -DMICRODDP_CUDA=ON -DMICRODDP_MPI=OFF -DMICRODDP_BUILD_APP=OFF \
  -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >"$BUILD.configure.log" 2>&1 || { tail -30 "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" --target test_cuda -j"$(nproc)"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
rc=0
( cd "$BUILD" && ctest -L cuda --output-on-failure ) | tee "$BUILD/gpu-check.log" || rc=$?
echo
printf '%-24s %s\n' "suite" "result"
grep -E "Test +#[0-9]+: cuda\." "$BUILD/gpu-check.log" | sed -E 's/.*: (cuda\.[a-z_]+) \.+ *\**([A-Za-z]+).*/\1 \2/' |
  while read -r s r; do printf '%-24s %s\n' "$s" "$r"; done
echo "elapsed: $(( $(date +%s) - start )) s"
exit $rc
