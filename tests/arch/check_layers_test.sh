#!/usr/bin/env bash
# The layer check must catch what it exists for: an include from a higher
# layer, from app/, and a file outside any layer; and pass a clean tree.
set -uo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check_layers.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/core/ir" "$t/core/model" "$t/core/labs" "$t/kernels/cpu"
printf '#include "core/ir/spec.h"\n' >"$t/core/model/ok.cpp"
printf '#pragma once\n' >"$t/core/ir/spec.h"
printf '#include <vector>\n' >"$t/kernels/cpu/k.h"
fail=0
out=$("$check" "$t"); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: clean tree rejected: $out"; fail=1; }
printf '#include "core/labs/lesson.h"\n' >"$t/core/ir/bad.cpp"
out=$("$check" "$t"); rc=$?
[ $rc -eq 1 ] && grep -q "core/ir/bad.cpp:1: includes core/labs/lesson.h: layer 'labs' is above 'ir'" <<<"$out" \
  || { echo "FAIL: upward include not named (rc $rc): $out"; fail=1; }
rm "$t/core/ir/bad.cpp"; printf '#include "app/viz/scene.h"\n' >"$t/core/model/bad.h"
out=$("$check" "$t"); rc=$?
[ $rc -eq 1 ] && grep -q "core/model/bad.h:1: includes app/viz/scene.h" <<<"$out" \
  || { echo "FAIL: app include not named (rc $rc): $out"; fail=1; }
rm "$t/core/model/bad.h"; printf '#pragma once\n' >"$t/core/loose.h"
out=$("$check" "$t"); rc=$?
[ $rc -eq 1 ] && grep -q "core/loose.h: not inside a layer" <<<"$out" \
  || { echo "FAIL: file outside a layer not named (rc $rc): $out"; fail=1; }
rm "$t/core/loose.h"; printf '#include "core/ir/spec.h"\n' >"$t/kernels/cpu/bad.cpp"
out=$("$check" "$t"); rc=$?
[ $rc -eq 1 ] && grep -q "kernels/cpu/bad.cpp:1: includes core/ir/spec.h" <<<"$out" \
  || { echo "FAIL: kernels including core not named (rc $rc): $out"; fail=1; }
[ $fail -eq 0 ] && echo "check_layers_test: 5 of 5 cases as expected"
exit $fail
