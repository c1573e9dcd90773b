#!/usr/bin/env bash
# make demo: the 3-rank ring ([1,2,3], [4,5,6], [7,8,9] -> [12,15,18]).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/release/app
RING=(--collective all_reduce --algorithm ring_unchunked --ranks 3 --data "1,2,3;4,5,6;7,8,9")
LESSON=lessons/02-ring-double-buffering.yaml
if [ -n "${DISPLAY:-}" ] && [ -x "$BIN/microddp-viz" ]; then
  if [ -f "$LESSON" ]; then exec "$BIN/microddp-viz" --lesson "$LESSON"; fi
  exec "$BIN/microddp-viz" "${RING[@]}"
fi
echo "(no display: the terminal walk-through; run 'make demo' under X for the window)"
if [ -f "$LESSON" ] && "$BIN/microddp" lesson --help >/dev/null 2>&1; then
  exec "$BIN/microddp" lesson "$LESSON" --non-interactive
fi
exec "$BIN/microddp" run "${RING[@]}" --steps
