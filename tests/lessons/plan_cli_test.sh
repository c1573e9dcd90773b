#!/bin/sh
# `microddp lesson FILE --plan` and `--speaker` as a lecturer types them:
# exact rows of lesson 03's plan (its optional beats marked and summed
# without), lessons 02 + 03 planned together, lesson 02's speaker sheet, and
# a bad `minutes:` or `optional:` refused with file:line:column and exit 2,
# as are lesson files with --list and a lesson given twice.
set -u
bin=$1
src=$2
fail=0
out=$("$bin" lesson "$src/lessons/03-naive-tree-ring.yaml" --plan) || { echo "FAIL: --plan exited $?"; fail=1; }
for want in "   5  collective     4  18:00  Where is the crossover?  [?]" \
    "  11  lab            2  38:00  Measured now, in the lab.  (optional)" \
    "total 40 min (11 beats); without the 5 optional beats 25 min"; do
  printf '%s\n' "$out" | grep -qxF "$want" || { echo "FAIL: --plan lacks the line '$want'"; printf '%s\n' "$out"; fail=1; }
done
out=$("$bin" lesson 02-ring-double-buffering "$src/lessons/03-naive-tree-ring.yaml" --plan) || { echo "FAIL: --plan of two lessons exited $?"; fail=1; }
for want in "total 25 min (6 beats)" "total 40 min (11 beats); without the 5 optional beats 25 min" \
    "02 + 03: 65 min, 50 without optional"; do
  printf '%s\n' "$out" | grep -qxF "$want" || { echo "FAIL: --plan of 02 and 03 lacks the line '$want'"; printf '%s\n' "$out"; fail=1; }
done
[ "$(printf '%s\n' "$out" | tail -n 1)" = "02 + 03: 65 min, 50 without optional" ] || { echo "FAIL: the sum is not the last line"; fail=1; }
err=$("$bin" lesson 02-ring-double-buffering 03-naive-tree-ring 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: two lessons without --plan exited $rc, not 2"; fail=1; }
case $err in
  *"2 lesson files given (02-ring-double-buffering, 03-naive-tree-ring); several files only with --plan"*) ;;
  *) echo "FAIL: unexpected error for two lessons: $err"; fail=1 ;;
esac
# Files with --list (which would ignore them) and a lesson planned twice: exit 2, named.
expect2() {  # WHAT WANT ARGS...: exit 2 and stderr holding WANT
  what=$1 want=$2
  shift 2
  err=$("$bin" "$@" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $what exited $rc, not 2"; fail=1; }
  case $err in
    *"$want"*) ;;
    *) echo "FAIL: unexpected error for $what: $err"; fail=1 ;;
  esac
}
expect2 "two lessons with --list" \
  "lesson: --list lists the shipped lessons and takes no lesson file; got 2 (02-ring-double-buffering, 03-naive-tree-ring)" \
  lesson 02-ring-double-buffering 03-naive-tree-ring --list
expect2 "one lesson with --list" "takes no lesson file; got 1 (02-ring-double-buffering)" lesson 02-ring-double-buffering --list
expect2 "a lesson twice" "lesson: '02-ring-double-buffering' is given twice; each lesson once" \
  lesson 02-ring-double-buffering 03-naive-tree-ring 02-ring-double-buffering --plan
expect2 "a lesson twice under two names" \
  "lesson: '$src/lessons/02-ring-double-buffering.yaml' and '02-ring-double-buffering' are the same lesson (" \
  lesson "$src/lessons/02-ring-double-buffering.yaml" 02-ring-double-buffering --plan
# --list --plan (issue 37: --plan was ignored): every shipped lesson's plan, then the course's total
out=$(MICRODDP_LESSONS="$src/lessons" "$bin" lesson --list --plan) || { echo "FAIL: --list --plan exited $?"; fail=1; }
for want in "total 25 min (6 beats)" "total 40 min (11 beats); without the 5 optional beats 25 min"; do
  printf '%s\n' "$out" | grep -qxF "$want" || { echo "FAIL: --list --plan lacks the line '$want'"; fail=1; }
done
n=$(ls "$src"/lessons/*.yaml | wc -l)
[ "$(printf '%s\n' "$out" | grep -c '^total ')" = "$n" ] || { echo "FAIL: --list --plan: not $n plans"; fail=1; }
case $(printf '%s\n' "$out" | tail -n 1) in
  "01 + 02 + 03 + "*" min, "*" without optional") ;;
  *) echo "FAIL: --list --plan does not end with the sum: $(printf '%s\n' "$out" | tail -n 1)"; fail=1 ;;
esac
expect2 "--list --speaker" \
  "lesson: --list lists the shipped lessons (with --plan: each one's plan and the total); --speaker is for a lesson FILE: leave out --list or --speaker" \
  lesson --list --speaker
expect2 "--list --non-interactive" "--non-interactive is for a lesson FILE" lesson --list --plan --non-interactive
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
  *"bad.yaml:20:14: 'minutes' is the time planned for this beat, 0.25..60 minutes; got '-1'"*) ;;
  *) echo "FAIL: unexpected error: $err"; fail=1 ;;
esac
sed '0,/^    optional: true$/s//    optional: maybe/' "$src/lessons/03-naive-tree-ring.yaml" > "$tmp/badopt.yaml"
err=$("$bin" lesson "$tmp/badopt.yaml" --plan 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a bad optional: exited $rc, not 2"; fail=1; }
case $err in
  *"badopt.yaml:"*":15: 'optional' must be true or false, got 'maybe'"*) ;;
  *) echo "FAIL: unexpected error for a bad optional: $err"; fail=1 ;;
esac
[ $fail = 0 ] && echo "ok: lesson --plan and --speaker"
exit $fail
