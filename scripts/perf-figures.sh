#!/usr/bin/env bash
# The figures of the README's "Performance" section, in one run, in the
# order they depend on each other: calibrate (writes a profile into a
# scratch folder, not your own), the prediction error per algorithm and
# world size, busbw at 64 MiB against memcpy, the recording overhead, and
# the window's frame time. Run it on an otherwise idle machine: every
# figure here is a measurement of the machine in front of you.
#   scripts/perf-figures.sh [BUILD_DIR]      (default build/release)
# Takes about 7 minutes on a 2-core machine. Prints a summary at the end;
# the full tables are kept in $OUT (default a fresh folder under /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/release}/app
OUT=${OUT:-$(mktemp -d /tmp/microddp-perf.XXXXXX)}
mkdir -p "$OUT"
PROFILE=$OUT/profile.json
[ -x "$B/microddp" ] || { echo "error: $B/microddp not found (run make build first)" >&2; exit 2; }
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg); tables in $OUT"

"$B/microddp" calibrate --out "$PROFILE" > "$OUT/calibrate.txt"
grep -E "^(warning|profile|small msgs|large msgs|lockstep barrier|peer wait|memory bus)" "$OUT/calibrate.txt"

for n in 2 3 4; do
  "$B/microddp" bench --algorithm naive,tree,ring --ranks $n -b 4K -e 64M --summary --profile "$PROFILE" \
    > "$OUT/summary-n$n.txt"
done
echo "# prediction error, median / max over 4 KiB .. 64 MiB (bench -n 20 -w 5)"
for n in 2 3 4; do
  grep -h "^# warning" "$OUT/summary-n$n.txt" || true
  grep -o "x[0-9.]*); [0-9]* CPUs now, [0-9]* in the profile: [a-zA-Z ]*" "$OUT/summary-n$n.txt" | sed "s/^/n=$n profile check: /"
  sed -n '/prediction error/,$p' "$OUT/summary-n$n.txt" | grep -v "^#"
done

echo "# ring all-reduce, 64 MiB float32: busbw against single-thread memcpy (same run)"
for n in 2 4; do
  for k in 1 2 3; do
    "$B/microddp" bench --algorithm ring --ranks $n -b 64M -e 64M -n 10 -w 3 --check --profile "$PROFILE" \
      > "$OUT/busbw-n$n-$k.txt"
    awk -v n=$n '/memcpy/{m=$5} /^ +ring/{b=$9; w=$10} END{printf "n=%d  memcpy %s GB/s  busbw %s GB/s  ratio %.2f  #wrong %s\n", n, m, b, b/m, w}' \
      "$OUT/busbw-n$n-$k.txt"
  done
done

echo "# recording overhead (41 pairs of runs, order alternating)"
"$B/microddp" bench --algorithm ring --ranks 2 -b 1M -e 64M -f 4 --record-overhead 41 --profile "$PROFILE" \
  > "$OUT/record-overhead.txt"
grep -E "^ +ring" "$OUT/record-overhead.txt" | awk '{printf "%10s B  off %10s us  on %10s us  overhead %s %%\n", $2, $7, $13, $14}'

if [ -x "$B/microddp-viz" ] && command -v xvfb-run >/dev/null; then
  echo "# microddp-viz, 16 ranks x 16 chunks, 1280x720 under Xvfb (llvmpipe)"
  for k in 1 2 3; do
    xvfb-run -a "$B/microddp-viz" --algorithm ring --ranks 16 --count 256 --size 1280x720 --bench-frames 300 2>&1 | grep -E "average|first" | tr '\n' ' '
    echo
  done
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
