#!/bin/sh
# Slides that wait: --export-frames --lesson --present of lessons 07 and 10
# (every beat a DDP training run or a collective), and lessons 05 and 12's
# beat after one that priced with its own preset or NICs (05 b6 after b5's
# infiniband, 12 b5 after b4's 8 NICs/node: the prediction source is each
# beat's own, issue 37; test_presenter_kit8.cpp walks them in C++)
# describes each slide
# (--describe) exactly as --screenshot --beat N --present describes that
# beat: the same view, run, buffers position, DDP run (the beat's own,
# finished: no "running run_ddp for real…", no "(showing the previous
# run)", no "(not the beat's run)") and lesson state; --describe alone or
# empty is refused (exit 2). The checks are skipped
# (MICRODDP_VIZ_SKIP_CHECKS) in both: the pictures are compared, not the
# checks, and the test stays quick. Runs under one virtual X display.
# Exit 77 (CTest: skipped) when xvfb-run is missing.
# usage: lesson_slides_test.sh MICRODDP_VIZ WORKDIR
set -u
viz=$1 dir=$2
if [ -z "${MICRODDP_SLIDES_IN_XVFB:-}" ]; then
  if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: xvfb-run not found (apt-get install xvfb)"
    exit 77
  fi
  MICRODDP_SLIDES_IN_XVFB=1 exec xvfb-run -a "$0" "$@"
fi
export MICRODDP_VIZ_SKIP_CHECKS=1
lessons="$(dirname "$0")/../../lessons"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail=0
# --describe without a picture to describe, or with an empty path: exit 2, naming it.
err=$("$viz" --describe "$dir/d.txt" 2>&1); rc=$?
if [ $rc != 2 ] || [ "$err" != "error: --describe $dir/d.txt needs --screenshot FILE or --export-frames DIR (it describes their pictures)" ]; then
  echo "FAIL: --describe alone: exit $rc, '$err'"; fail=1
fi
err=$("$viz" --screenshot "$dir/x.png" --describe "" 2>&1); rc=$?
if [ $rc != 2 ] || [ "$err" != "error: --describe '' is empty: give a path" ]; then
  echo "FAIL: --describe '': exit $rc, '$err'"; fail=1
fi
beats_of() { case $1 in 07-*) echo 8 ;; 10-*) echo 6 ;; 05-*) echo 7 ;; 12-*) echo 6 ;; esac; }
# The beats compared with their --screenshot (07 and 10: every one).
shots_of() { case $1 in 05-*) echo 6 ;; 12-*) echo 5 ;; *) seq 1 "$(beats_of "$1")" ;; esac; }
# A measured sweep (lesson 05 b6: shm) may stand at another point in the two
# pictures: its point count and crossover are left out of the comparison.
norm() { sed -e 's/; sweep [0-9]* points ([a-z]*)$//' -e '/^crossover: /d' "$1"; }
all="07-bucketing-overlap 10-fsdp-prefetch 05-alpha-beta 12-nccl-on-real-clusters"
# Every export and screenshot runs side by side (their DDP runs mostly
# sleep; a description holds no timing, so a loaded machine only makes the
# test slower), then the descriptions are compared.
for lesson in $all; do
  { "$viz" --export-frames "$dir/$lesson" --lesson "$lessons/$lesson.yaml" --present \
      --describe "$dir/$lesson.export.txt" >/dev/null 2>"$dir/$lesson.export.err" || echo >"$dir/$lesson.export.failed"; } &
  for b in $(shots_of $lesson); do
    nn=$(printf '%02d' "$b")
    { "$viz" --screenshot "$dir/$lesson.$nn.png" --lesson "$lessons/$lesson.yaml" --beat "$b" --present \
        --describe "$dir/$lesson.$nn.shot.txt" >/dev/null 2>"$dir/$lesson.$nn.err" || echo >"$dir/$lesson.$nn.failed"; } &
  done
done
wait
for lesson in $all; do
  if [ -e "$dir/$lesson.export.failed" ]; then
    echo "FAIL: export of $lesson:"; cat "$dir/$lesson.export.err"; exit 1
  fi
  beats=$(grep -c '^slide: beat_[0-9]*\.png$' "$dir/$lesson.export.txt")
  if [ "$beats" != "$(beats_of $lesson)" ]; then
    echo "FAIL: $lesson: $beats slides described, expected $(beats_of $lesson)"; fail=1
  fi
  for b in $(shots_of $lesson); do
    nn=$(printf '%02d' "$b")
    if [ -e "$dir/$lesson.$nn.failed" ]; then
      echo "FAIL: screenshot of $lesson beat $b:"; cat "$dir/$lesson.$nn.err"; exit 1
    fi
    # The slide's block: from its "slide:" line to the blank line after it.
    awk -v s="slide: beat_$nn.png" '$0 == s {on = 1; next} on && $0 == "" {exit} on {print}' \
      "$dir/$lesson.export.txt" >"$dir/$lesson.$nn.slide.txt"
    if [ ! -s "$dir/$lesson.$nn.slide.txt" ]; then
      echo "FAIL: $lesson: no description of beat_$nn.png"; fail=1
    else
      case $lesson in
        05-*|12-*) norm "$dir/$lesson.$nn.shot.txt" >"$dir/$lesson.$nn.shot.cmp"
                   norm "$dir/$lesson.$nn.slide.txt" >"$dir/$lesson.$nn.slide.cmp" ;;
        *) cp "$dir/$lesson.$nn.shot.txt" "$dir/$lesson.$nn.shot.cmp"
           cp "$dir/$lesson.$nn.slide.txt" "$dir/$lesson.$nn.slide.cmp" ;;
      esac
      if ! diff -u "$dir/$lesson.$nn.shot.cmp" "$dir/$lesson.$nn.slide.cmp"; then
        echo "FAIL: $lesson beat $b: the exported slide differs from --screenshot --beat $b (diff above)"; fail=1
      fi
    fi
    if ! grep -q '^prediction: ' "$dir/$lesson.$nn.slide.txt" && grep -q '^run: ' "$dir/$lesson.$nn.slide.txt"; then
      echo "FAIL: $lesson beat $b: no 'prediction:' line beside the run"; fail=1
    fi
  done
  # Every DDP slide shows a finished run, the beat's own.
  if grep -n 'running run_ddp\|showing the previous run\|not the beat.s run\|no result yet' "$dir/$lesson.export.txt"; then
    echo "FAIL: $lesson: a slide shows a run that has not finished or is not its beat's (lines above)"; fail=1
  fi
done
# Lesson 10: beat 4 is the prefetch run, beats 5 and 6 the runs without
# prefetch and plain DDP, each finished.
for pair in "04|ddp run: sharded true prefetch true overlap" "05|ddp run: sharded true prefetch false overlap" \
            "06|ddp run: sharded false prefetch true overlap bucketed"; do
  nn=${pair%%|*} want=${pair#*|}
  if ! grep -qF "$want" "$dir/10-fsdp-prefetch.$nn.slide.txt"; then
    echo "FAIL: lesson 10's beat_$nn.png lacks '$want':"; cat "$dir/10-fsdp-prefetch.$nn.slide.txt"; fail=1
  fi
done
# Lesson 05 b6 prices with the profile (nvlink while there is none), not b5's infiniband.
grep -qx 'prediction: profile (preset nvlink while there is none)' "$dir/05-alpha-beta.06.slide.txt" ||
  { echo "FAIL: lesson 05's beat_06.png is not priced with the profile:"; cat "$dir/05-alpha-beta.06.slide.txt"; fail=1; }
[ $fail = 0 ] && echo "PASS: lessons 07, 10, 05 and 12 exported: every slide compared is its beat's --screenshot"
exit $fail
