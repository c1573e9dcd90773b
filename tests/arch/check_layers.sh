#!/usr/bin/env bash
# The layering rule of docs/design.md, checked over every #include line:
# a file under core/<layer>/ may include headers of its own layer and of the
# layers below it, never above; kernels/ includes nothing of core/ or app/;
# core/ never includes app/. Prints each offending line and exits 1.
#   tests/arch/check_layers.sh [SOURCE_DIR]
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
layers=(ir algorithms exec record model labs)   # lowest first
rank_of() {
  local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1
}
bad=0; checked=0
while IFS= read -r f; do
  checked=$((checked + 1))
  case "$f" in
    core/*) own=$(rank_of "$(cut -d/ -f2 <<<"$f")")
            if [ "$own" -lt 0 ]; then echo "$f: not inside a layer (core/{${layers[*]}}/)"; bad=1; continue; fi ;;
    kernels/*) own=-2 ;;
  esac
  while IFS=: read -r line inc; do
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$inc")
    case "$target" in
      app/*) echo "$f:$line: includes $target (core and kernels never include app/)"; bad=1 ;;
      core/*)
        if [ "$own" -eq -2 ]; then echo "$f:$line: includes $target (kernels/ includes nothing of core/)"; bad=1; continue; fi
        t=$(rank_of "$(cut -d/ -f2 <<<"$target")")
        if [ "$t" -lt 0 ]; then echo "$f:$line: includes $target, which is in no layer"; bad=1
        elif [ "$t" -gt "$own" ]; then
          echo "$f:$line: includes $target: layer '${layers[$t]}' is above '${layers[$own]}'"; bad=1
        fi ;;
    esac
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done < <(find core kernels -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)
if [ "$checked" -eq 0 ]; then echo "check_layers: no source files found under $root"; exit 1; fi
[ "$bad" -eq 0 ] && echo "check_layers: $checked files, every #include points to its own layer or one below (${layers[*]})"
exit "$bad"
