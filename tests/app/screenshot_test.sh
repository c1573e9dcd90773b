#!/bin/sh
# Screenshot of the 3-rank ring after step 1 under a virtual X display:
# right size, not blank, and pixel probes at chunks whose colours the scene
# knows. Exit 77 (reported by CTest as skipped) when xvfb-run is missing.
# usage: screenshot_test.sh MICRODDP_VIZ CHECK_PNG WORKDIR
set -u
viz=$1 check=$2 dir=$3
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run not found (apt-get install xvfb)"
  exit 77
fi
mkdir -p "$dir" || exit 1
png=$dir/ring3_step1.png probes=$dir/ring3_step1.probes
rm -f "$png" "$probes"
xvfb-run -a "$viz" --screenshot "$png" --size 1280x720 --step 1 --probes "$probes" \
  --collective all_reduce --algorithm ring_unchunked --ranks 3 --data "1,2,3;4,5,6;7,8,9" || exit 1
"$check" "$png" "$probes" 1280 720 || exit 1
# Colours known from the schedule: after step 0, R0's send_buff holds R2's
# input (Okabe-Ito bluish green), R0's accum starts with R0's stripe (orange),
# R1's input is R1's (sky blue).
fail=0
for spec in "R0 send_buff [0, 1)|0 158 115" "R0 accum [0, 1)|230 159 0" "R1 input [2, 3)|86 180 233"; do
  what=${spec%|*} want=${spec#*|}
  got=$(grep -F " $what" "$probes" | head -n 1 | awk '{print $3, $4, $5}')
  if [ "$got" != "$want" ]; then
    echo "probe '$what': scene colour '$got', expected '$want'"
    fail=1
  fi
done
# Issue 35's views in the real window: the switch endpoint of nvls (which
# once crashed the window: endpoints beyond the ranks), the double binary
# tree, LL flag words, two channels. Each must render, right size, not blank.
i=0
for args in "--algorithm nvls --ranks 4" "--algorithm double_binary_tree --ranks 6 --count 24 --segments 2" \
            "--algorithm ring --ranks 4 --count 40 --protocol ll" "--algorithm ring --ranks 4 --count 16 --channels 2"; do
  i=$((i + 1))
  png=$dir/nccl$i.png probes=$dir/nccl$i.probes
  rm -f "$png" "$probes"
  # shellcheck disable=SC2086
  if ! xvfb-run -a "$viz" --screenshot "$png" --size 1280x720 --step 1 --probes "$probes" $args; then
    echo "microddp-viz $args: failed"
    fail=1
    continue
  fi
  "$check" "$png" "$probes" 1280 720 || fail=1
done
# The compare view logs the compare slider's position (8 ranks: naive and
# ring, 14 steps), not the hidden main run's.
png=$dir/compare_step9.png
out=$(xvfb-run -a "$viz" --view compare --step 9 --screenshot "$png" 2>&1)
if ! printf '%s' "$out" | grep -qF "wrote $png (1280x720, after step 8 · 9 of 14 steps run)"; then
  echo "microddp-viz --view compare --step 9: logged '$out', expected 'after step 8 · 9 of 14 steps run'"
  fail=1
fi
exit $fail
