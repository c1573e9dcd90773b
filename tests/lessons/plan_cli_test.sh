#!/bin/sh
# `microddp lesson FILE --plan` and `--speaker` as a lecturer types them:
# exact rows of lesson 03's plan, lesson 02's speaker sheet, and a bad
# `minutes:` refused with file:line:column and exit 2.
set -u
bin=$1
src=$2
fail=0
out=$("$bin" lesson "$src/lessons/03-naive-tree-ring.yaml" --plan) || { echo "FAIL: --plan exited $?"; fail=1; }
for want in "   5  collective     4  18:00  Where is the crossover?  [?]" "total 40 min (11 beats)"; do
  printf '%s\n' "$out" | grep -qxF "$want" || { echo "FAIL: --plan lacks the line '$want'"; printf '%s\n' "$out"; fail=1; }
done
out=$("$bin" lesson 02-ring-double-buffering --speaker) || { echo "FAIL: --speaker exited $?"; fail=1; }
for want in "── beat 6/6 ──" "answer: 3) [8, 10, 12]" "planned 3:00-8:00 of 25:00" "beat 3: Step 1 repeats the pattern with the roles swapped: each rank forwards…"; do
  printf '%s\n' "$out" | grep -qxF "$want" || { echo "FAIL: --speaker lacks the line '$want'"; fail=1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^    minutes: 5$/    minutes: -1/' "$src/lessons/03-naive-tree-ring.yaml" > "$tmp/bad.yaml"
err=$("$bin" lesson "$tmp/bad.yaml" --plan 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a bad minutes: exited $rc, not 2"; fail=1; }
case $err in
  *"bad.yaml:15:14: 'minutes' is the time planned for this beat, 0.25..60 minutes; got '-1'"*) ;;
  *) echo "FAIL: unexpected error: $err"; fail=1 ;;
esac
[ $fail = 0 ] && echo "ok: lesson --plan and --speaker"
exit $fail
