#!/usr/bin/env bash
# microddp lesson as a teacher types it: questions before answers on stdin,
# step times, profiles, lessons by bare name, FIFOs and missing files.
. "$(dirname "$0")/cli_lib.sh" "$1"
# lessons, interactively (stdin piped): a question comes before its answer.
# Lesson 02 beat 2 shows the inputs, asks, and prints step 0 (with accum
# [8, 10, 12]) only after the answer; empty lines re-ask instead of counting
# as wrong, and so does a choice that does not exist. Input: Enter after
# beat 1; two stray Enters, a 7 (of 4 choices), then 3; Enter; Enter; a
# wrong 20 for beat 4; Enter; 2 for beat 5; Enter.
LESSONS_DIR="$(cd "$(dirname "$0")/../../lessons" && pwd)"
out=$(printf '\n\n\n7\n3\n\n\n20\n\n2\n\n' | "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" 2>&1); rc=$?
beat2=$(awk '/── beat 2\/6/{on=1} /── beat 3\/6/{on=0} on' <<<"$out")
q=$(grep -n "^? What does R0's accum hold after step 0?" <<<"$beat2" | cut -d: -f1)
s0=$(grep -n "^step 0 (1st of 2)" <<<"$beat2" | cut -d: -f1)
acc=$(grep -n "accum \[8, 10, 12\]" <<<"$beat2" | head -1 | cut -d: -f1)
if [ "$rc" -ne 0 ] || [ -z "$q" ] || [ -z "$s0" ] || [ -z "$acc" ] || [ "$q" -ge "$s0" ] || [ "$q" -ge "$acc" ] \
   || [ "$(grep -c '(nothing typed; type your answer)' <<<"$beat2")" -ne 2 ] || ! grep -q "^your choice> right.$" <<<"$beat2" \
   || ! grep -qF "(7 is not one of the choices 1-4; type your answer)" <<<"$beat2" \
   || ! grep -qF "not quite: the answer is 24" <<<"$out" || ! grep -qF "21 checks passed, 0 failed · 2 of 3 questions right" <<<"$out"; then
  echo "FAIL: lesson 02 interactive (question line $q, step 0 at $s0, accum at $acc, rc $rc):"; echo "$beat2" | head -40
  fail=$((fail + 1)); else passed=$((passed + 1)); fi
# --non-interactive keeps the same order (issue 37): the question and its answer line, then the step
# and the checks (which hold the answer); beat 4's check "bytes R0 sent ...: 24" after "answer: 24"
out=$("$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1)
beat2=$(awk '/── beat 2\/6/{on=1} /── beat 3\/6/{on=0} on' <<<"$out")
q=$(grep -n "^? What does R0's accum hold" <<<"$beat2" | cut -d: -f1); s0=$(grep -n "^step 0 (1st of 2)" <<<"$beat2" | cut -d: -f1)
a=$(grep -nF "answer: 3) [8, 10, 12]" <<<"$beat2" | cut -d: -f1); acc=$(grep -n "accum \[8, 10, 12\]" <<<"$beat2" | head -1 | cut -d: -f1)
beat4=$(awk '/── beat 4\/6/{on=1} /── beat 5\/6/{on=0} on' <<<"$out")
a4=$(grep -nx "answer: 24" <<<"$beat4" | cut -d: -f1); c4=$(grep -nF "  ✓ bytes R0 sent in the whole run: 24" <<<"$beat4" | cut -d: -f1)
if [ -z "$q" ] || [ -z "$s0" ] || [ -z "$a" ] || [ -z "$acc" ] || [ "$q" -ge "$a" ] || [ "$a" -ge "$s0" ] || [ "$a" -ge "$acc" ] \
   || [ -z "$a4" ] || [ -z "$c4" ] || [ "$a4" -ge "$c4" ] || ! grep -qx "R0 input \[1, 2, 3\]" <<<"$beat2"; then
  echo "FAIL: lesson 02 --non-interactive order (question $q, answer $a, step 0 $s0, accum $acc; beat 4 answer $a4, check $c4)"
  echo "$beat2" | head -30; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# lessons time each step as `run --steps` does: the median of warm repetitions,
# the cold first run apart, and the prediction from this machine's profile
LX=$(mktemp -d /tmp/microddp-lesson-prof.XXXXXX); mkdir -p "$LX/microddp"
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6]}' > "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
n=$(grep -cE '^step [01] \((1st|2nd) of 2\) · phase ring · [0-9.]+ (µs|ms|s) median \(p10 [0-9.]+ (µs|ms|s), p90 [0-9.]+ (µs|ms|s), [0-9]+ reps, barrier included; first run [0-9.]+ (µs|ms|s)\) · predicted 3\.0 µs \(error [+-][0-9.]+%\)$' <<<"$out")
if [ $rc -ne 0 ] || [ "$n" -lt 2 ] || grep -q "(one run" <<<"$out"; then
  echo "FAIL: lesson 02 step times (rc $rc, $n warm step lines)"; grep "^step" <<<"$out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a beat that stays at the step the last one showed (beat 3 at step 1, beat 4 at the end of the same 2-step run)
# says so in a line and does not print the step again
if [ "$(grep -c '^step 1 (2nd of 2) · ' <<<"$out")" != 2 ] || ! grep -qx "(the state after step 1 · 2 of 2 steps run, as above)" <<<"$out"; then
  echo "FAIL: lesson 02 reprints step 1 in beat 4"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a broken profile costs the lesson its predictions (one line says why), not the lesson
echo '{"alpha_s": "x"}' > "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qx "no predicted step times: profile '$LX/microddp/profile.json' lacks numeric alpha_s and beta_s_per_byte" <<<"$out" || grep -q "predicted [0-9]" <<<"$out"; then
  echo "FAIL: lesson 02 with a broken profile (rc $rc)"; head -3 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a FIFO or a directory where the profile should be: refused by what it is, at once (a FIFO used to block the read)
rm -f "$LX/microddp/profile.json"; mkfifo "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" timeout 20 "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qx "no predicted step times: profile '$LX/microddp/profile.json': is a FIFO (named pipe), not a regular file (run \`microddp calibrate\` to write one)" <<<"$out"; then
  echo "FAIL: lesson 02 with a FIFO as profile (rc $rc)"; head -3 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$LX/microddp/profile.json"; mkdir "$LX/microddp/profile.json"
expect 2 "error: profile '$LX/microddp/profile.json': is a directory (run \`microddp calibrate\` to write one)" -- run -c all_reduce -n 2 --count 4 --profile "$LX/microddp/profile.json"
rm -rf "$LX"
# the lessons print a screenful per beat, not megabytes: lesson 03 (1 MiB per rank at the end) and 09 (lab beats off: cluster.lesson runs them)
for l in 03-naive-tree-ring 09-topology; do
  n=$(MICRODDP_LESSON_NO_LAB=1 "$BIN" lesson "$LESSONS_DIR/$l.yaml" --non-interactive | wc -lc)
  read -r lines bytes <<<"$n"
  if [ "$lines" -gt 500 ] || [ "$bytes" -gt 60000 ]; then
    echo "FAIL: lesson $l printed $lines lines, $bytes bytes"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
# lesson 09 without the lab: each of its 4 lab beats says so, its 3 lab checks are skipped, the lesson passes
out=$(MICRODDP_LESSON_NO_LAB=1 "$BIN" lesson "$LESSONS_DIR/09-topology.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] ||
   [ "$(grep -cx 'lab beat skipped: MICRODDP_LESSON_NO_LAB is set; its checks are skipped, the model-only beats stand' <<<"$out")" != 4 ] ||
   [ "$(grep -c '^  – measured .*: skipped: MICRODDP_LESSON_NO_LAB is set$' <<<"$out")" != 3 ] ||
   ! grep -qx '37 checks passed, 0 failed, 3 skipped (no cluster lab here)' <<<"$out"; then
  echo "FAIL: lesson 09 with MICRODDP_LESSON_NO_LAB=1 (rc $rc):"; tail -5 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# lessons by bare name, as the README writes them, from any directory: the
# name, the name + .yaml, in the shipped lessons; a name matching nothing is
# exit 2 naming it and the lessons there
for name in 02-ring-double-buffering 02-ring-double-buffering.yaml; do
  for dir in /tmp "$(dirname "$0")/../.."; do
    out=$(cd "$dir" && "$BIN" lesson "$name" --non-interactive 2>&1); rc=$?
    if [ $rc -ne 0 ] || ! grep -qF "checks passed, 0 failed" <<<"$out"; then
      echo "FAIL: (cd $dir && microddp lesson $name) -> exit $rc:"; tail -3 <<<"$out"; fail=$((fail + 1))
    else passed=$((passed + 1)); fi
  done
done
out=$(cd /tmp && "$BIN" lesson no-such-lesson --non-interactive 2>&1); rc=$?
if [ $rc -ne 2 ] || ! grep -qE "^error: lesson 'no-such-lesson' not found in .*/lessons; the lessons: 01-[a-z-]+, 02-ring-double-buffering, 03-" <<<"$out"; then
  echo "FAIL: microddp lesson no-such-lesson -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# lessons: a directory and a repeated key are named as such
expect 2 "error: /tmp is a directory, not a lesson file" -- lesson /tmp --non-interactive
# a FIFO or a device: refused by what it is, at once (opening a FIFO for
# reading would wait for a writer forever; timeout turns a hang into a FAIL)
FIFO_DIR=$(mktemp -d /tmp/microddp-cli-fifo.XXXXXX); mkfifo "$FIFO_DIR/l.yaml"
for f in "$FIFO_DIR/l.yaml:a FIFO (named pipe)" "/dev/zero:a character device"; do
  out=$(timeout 10 "$BIN" lesson "${f%%:*}" --non-interactive 2>&1); rc=$?
  if [ $rc -ne 2 ] || [ "$out" != "error: ${f%%:*} is ${f#*:}, not a lesson file (lessons are YAML files such as lessons/01-primitives.yaml; \`microddp lesson --list\` lists them)" ]; then
    echo "FAIL: lesson ${f%%:*} -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
rm -rf "$FIFO_DIR"
# a path that is not there: the system's reason, and no file:line:col (there is no text to point into)
out=$("$BIN" lesson /tmp/microddp-no-such-lesson.yaml --non-interactive 2>&1); rc=$?
if [ $rc -ne 2 ] || [ "$out" != "error: cannot open /tmp/microddp-no-such-lesson.yaml: No such file or directory" ]; then
  echo "FAIL: lesson /tmp/microddp-no-such-lesson.yaml -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
out=$("$BIN" lesson /tmp --non-interactive 2>&1)
if grep -q ':0:0' <<<"$out"; then echo "FAIL: lesson /tmp printed a fake position: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
DUP=$(mktemp /tmp/microddp-cli-dup.XXXXXX.yaml)
printf 'title: t\nsetup: {collective: all_reduce, ranks: 3}\nbeats:\n  - text: a\n    text: b\n' > "$DUP"
expect 2 "error: $DUP:5:5: duplicate key 'text' in this mapping (first at line 4)" -- lesson "$DUP" --non-interactive
rm -f "$DUP"
# a beat's recorded run (lessons/README.md `recorded`): a missing file is exit 2 at the key's file:line:column
REC=$(mktemp -d /tmp/microddp-cli-rec.XXXXXX)
printf 'title: t\nsetup: {ranks: 3, data: [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}\nbeats:\n  - setup: {algorithm: single_buffered_ring, delay: {rank: -1, max_delay_us: 300}}\n    recorded: data/none.json\n    text: a\n' > "$REC/l.yaml"
expect 2 "error: $REC/l.yaml:5:15: recorded: cannot read record file '$REC/data/none.json'" -- lesson "$REC/l.yaml" --non-interactive
# a record that contradicts its own snapshots is refused with the file, the field and the first contradiction
# (edited copies of lesson 02's record: an output, a message's carried values, an event's end before its begin)
mkdir -p "$REC/data"; SRC="$LESSONS_DIR/data/single-buffered-ring-3x3.json"
sed 's/"outputs":\["000010410000404100007041"/"outputs":["000020410000404100007041"/' "$SRC" > "$REC/data/out.json"
sed 's/"values":\[7,8,9\]/"values":[7,8,10]/' "$SRC" > "$REC/data/carried.json"
sed 's/"end_ns":146598/"end_ns":146000/' "$SRC" > "$REC/data/time.json"
for edit in out carried time; do
  if cmp -s "$SRC" "$REC/data/$edit.json"; then echo "FAIL: the $edit edit changed nothing"; fail=$((fail + 1)); fi
done
# the unedited copy loads (the lesson's own data)
sed 's/none.json/good.json/' "$REC/l.yaml" > "$REC/good.yaml"; cp "$SRC" "$REC/data/good.json"
expect 0 "0 checks passed, 0 failed" -- lesson "$REC/good.yaml" --non-interactive
# an integer avg divides the sums after the last snapshot: its record loads (hostile review 8: every int32 avg was refused)
"$BIN" run -c all_reduce -a ring -n 3 --count 5 --dtype int32 --op avg --fill random:7 --save-record "$REC/data/avg.json" >/dev/null
printf 'title: t\nsetup: {collective: all_reduce, algorithm: ring, ranks: 3, count: 5, dtype: int32, op: avg, fill: "random:7"}\nbeats:\n  - at: end\n    recorded: data/avg.json\n    text: a\n' > "$REC/avg.yaml"
expect 0 "0 checks passed, 0 failed" -- lesson "$REC/avg.yaml" --non-interactive
for e in "out|outputs[0][0] = 10, but the last snapshot (after step 1) holds 9 in R0's output" \
         "carried|trace.carried[0][3] (step 0, R0 <- R2): element 2 carried 10, but R2's send_buff held [0, 3, 9] during step 0 (carried [7, 8, 10])" \
         "time|trace.events[0][0] (step 0, copy): ends at 146000 ns, before it begins at 146227 ns"; do
  sed "s/none.json/${e%%|*}.json/" "$REC/l.yaml" > "$REC/${e%%|*}.yaml"
  refuse "error: $REC/${e%%|*}.yaml:5:15: recorded: $REC/data/${e%%|*}.json contradicts its own snapshots: ${e#*|}" -- lesson "$REC/${e%%|*}.yaml" --non-interactive
done
rm -rf "$REC"
# the run that makes such a file (scripts/record-corrupt.sh): the one-buffer ring with delays, its options checked
refuse "error: --delay 'x' is not RANK,MAX_US (e.g. -1,300: every rank, up to 300 µs)" -- run -a single_buffered_ring --delay x
refuse "error: --delay '3,300': rank 3 is outside -1..2 (-1: every rank)" -- run -a single_buffered_ring --delay 3,300
refuse "error: --algorithm single_buffered_ring runs in lockstep mode only, not --mode free" -- run -a single_buffered_ring --mode free
for opt in "--trace tr.json" --steps --outputs "--repeat-steps 5" "--preset nvlink" "--root 2"; do
  # shellcheck disable=SC2086
  refuse "error: --algorithm single_buffered_ring does not take ${opt%% *} (it prints the corrupting seed and the first wrong element; --save-record keeps the run)" -- run -a single_buffered_ring --delay -1,300 $opt
done
[ ! -e tr.json ] || { echo "FAIL: a refused --trace wrote tr.json"; fail=$((fail + 1)); rm -f tr.json; }
refuse "error: --delay and --seeds are for a broken form (--algorithm single_buffered_ring), not ring" -- run -a ring --delay -1,300
cli_summary
