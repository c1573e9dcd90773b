#!/bin/sh
# Bad options exit 2 with one clear "error: ..." line naming the bad value,
# before any display is needed; and with no display the app exits 2 naming
# xvfb-run and `microddp run --steps`.
# usage: bad_options_test.sh MICRODDP_VIZ
set -u
viz=$1
fail=0
check() {  # check EXPECTED_SUBSTRING args...
  want=$1; shift
  out=$("$viz" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -qF -- "$want"; then
    echo "FAIL: microddp-viz $* -> rc $rc, stderr: $out (wanted rc 2 and '$want')"
    fail=1
  else
    echo "ok: $* -> $out"
  fi
}
check "unknown algorithm 'bogus'" --algorithm bogus --screenshot /tmp/x.png
check "unknown protocol 'bogus' (expected one of: simple, ll, ll128)" --protocol bogus --screenshot /tmp/x.png
check "channels = 2: algorithm 'tree' does not run in channels" --algorithm tree --channels 2 --screenshot /tmp/x.png
check "--ddp --ranks 17: the DDP view trains on 1..16 ranks" --ddp --ranks 17 --screenshot /tmp/x.png
# a saved run that contradicts its own snapshots (lesson 02's record, one output edited): --replay and
# --compare-runs refuse it as the lesson loader does (hostile review 8: the window drew the made-up value)
src=$(dirname "$0")/../../lessons/data/single-buffered-ring-3x3.json
bad=$(mktemp /tmp/microddp-bad-rec.XXXXXX)
sed 's/"outputs":\["000010410000404100007041"/"outputs":["000020410000404100007041"/' "$src" > "$bad"
if cmp -s "$src" "$bad"; then echo "FAIL: the edit of $src changed nothing"; fail=1; fi
why="contradicts its own snapshots: outputs[0][0] = 10, but the last snapshot (after step 1) holds 9 in R0's output"
check "$bad $why" --replay "$bad" --screenshot /tmp/x.png
check "$bad $why" --compare-runs "$src" "$bad" --screenshot /tmp/x.png
rm -f "$bad"
# hostile review 9: a record the schedule contradicts is refused by the loader, naming the file and the field
refuse() {  # refuse SED_EDIT EXPECTED: --compare-runs with the lesson's record edited so
  sed "$1" "$src" > "$bad"
  if cmp -s "$src" "$bad"; then echo "FAIL: the edit $1 changed nothing"; fail=1; fi
  check "$bad: $2" --compare-runs "$src" "$bad" --screenshot /tmp/x.png
}
refuse 's/"events":\[\[.*\]\],"initial"/"events":[[],[],[]],"initial"/' \
  "'trace.events[0]' has 0 events but the schedule gives endpoint 0 9 ops (one event each)"
refuse 's/"bytes_sent":\[24,/"bytes_sent":[1e18,/' \
  "'trace.bytes_sent[0]' is 1000000000000000000 B but the schedule's sends of endpoint 0 move 24 B"
refuse 's/"iteration_ns":\[742041\]/"iteration_ns":[-742041]/' "'trace.iteration_ns[0]' is -742041 ns, below 0"
refuse '0,/"chunk":0/s//"chunk":-7/' "'trace.events[0][2].chunk' is -7 but the schedule's op moves chunk 0"
refuse '0,/"wire_bytes":12/s//"wire_bytes":1e18/' \
  "'trace.events[0][2].wire_bytes' is 1000000000000000000 and 'trace.events[0][2].flags' 1, but 12 B under protocol simple are 12 B on the wire in 1 flags"
rm -f "$bad"
# the logging variables, as `microddp run` refuses them
out=$(MICRODDP_DEBUG=LOUD "$viz" --screenshot /tmp/x.png 2>&1 >/dev/null); rc=$?
if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -qF "error: MICRODDP_DEBUG 'LOUD' is not a log level"; then
  echo "FAIL: MICRODDP_DEBUG=LOUD microddp-viz -> rc $rc: $out"; fail=1; else echo "ok: MICRODDP_DEBUG=LOUD -> $out"; fi
# an unknown subsystem is ignored, as in NCCL (and `microddp run`): no error
out=$(MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=NET "$viz" --ranks 0 --screenshot /tmp/x.png 2>&1 >/dev/null); rc=$?
if [ $rc -ne 2 ] || printf '%s' "$out" | grep -qF "MICRODDP_DEBUG_SUBSYS" || ! printf '%s' "$out" | grep -qF "ranks 0"; then
  echo "FAIL: MICRODDP_DEBUG_SUBSYS=NET microddp-viz -> rc $rc: $out"; fail=1; else echo "ok: MICRODDP_DEBUG_SUBSYS=NET ignored -> $out"; fi
# an empty class poll is no poll: refused, whether or not the beat has choices (issue 37: it exited 0)
L01=$(dirname "$0")/../../lessons/01-primitives.yaml
check "--poll '' is empty: give the class's votes, one count per choice of the --beat's question (e.g. 12,30,5)" --lesson "$L01" --poll "" --screenshot /tmp/x.png
check "--poll ' ' is empty" --lesson "$L01" --beat 2 --poll " " --screenshot /tmp/x.png
check "--poll '3,4' on beat 1: a poll needs a multiple-choice question on this beat" --lesson "$L01" --beat 1 --poll 3,4 --screenshot /tmp/x.png
check "--size 0x0" --size 0x0 --screenshot /tmp/x.png
check "--size '12x'" --size 12x --screenshot /tmp/x.png
check "/nonexistent-dir/out.png" --screenshot /nonexistent-dir/out.png
check "--step 9" --step 9 --screenshot /tmp/x.png
check "--step -1 is outside 0..2" --step -1 --screenshot /tmp/x.png
# The compare view's range is the slider's: its longest schedule (ring, 4 steps
# at 3 ranks; without --ranks the compare view runs 8 ranks: naive and ring, 14 steps).
check "--step 5 is outside 0..4 (the longest compared schedule has 4 steps)" --view compare --ranks 3 --step 5 --screenshot /tmp/x.png
check "--step 15 is outside 0..14 (the longest compared schedule has 14 steps)" --view compare --step 15 --screenshot /tmp/x.png
# The compare view's sources (compare_sources.h): the bad value named.
check "--compare-source 'lan' (expected shm, lab, recorded, model or published)" --compare-source lan --screenshot /tmp/x.png
check "/nonexistent.txt: no such file" --against /nonexistent.txt --screenshot /tmp/x.png
check "unknown NCCL system 'dgx-z'" --compare-source model --nccl-system dgx-z --screenshot /tmp/x.png
check "recorded lab run '/nonexistent.json': cannot open it" --compare-source recorded --recorded /nonexistent.json --screenshot /tmp/x.png
check "--against goes with --compare-source published, not 'model'" --compare-source model --against /nonexistent.txt --screenshot /tmp/x.png
check "--lab-nic 'bogus': not a rate; give a number and a tc unit such as 100mbit, 1gbit, 12.5mbps" --compare-source lab --lab-nic bogus --screenshot /tmp/x.png
check "--lab-nic '5kbit': must be between 1mbit and 100gbit" --compare-source lab --lab-nic 5kbit --screenshot /tmp/x.png
for src in recorded shm lab; do
  check "--nccl-system goes with --compare-source model or published, not '$src'" --compare-source $src --nccl-system dgx-a100 --screenshot /tmp/x.png
done
# A recorded run with a row of an unknown algorithm: refused, the row named.
bad=${TMPDIR:-/tmp}/microddp-bad-record-$$.json
sed '0,/"algorithm": "[a-z_]*"/s//"algorithm": "bogus"/' "$(dirname "$0")/../../lessons/data/lab-allreduce-8x1-1gbit.json" > "$bad"
check "$bad: rows[0].algorithm: unknown algorithm 'bogus' for all_reduce" --compare-source recorded --recorded "$bad" --screenshot /tmp/x.png
rm -f "$bad"
check "--ranks was given 2 times; give it once" --ranks 2 --ranks 3 --screenshot /tmp/x.png
check "ranks 0" --ranks 0 --screenshot /tmp/x.png
# --nodes: the rule and the words of run, predict and bench (core/ir/topology.h check_nodes)
check "error: --nodes 0 must be at least 1" --nodes 0 --screenshot /tmp/x.png
# Inputs go through core (core/record/data.h): the messages of `microddp run`.
check "unknown fill 'bogus' (expected one of: iota, rank, random:SEED)" --fill bogus --screenshot /tmp/x.png
check "--fill random:SEED needs a non-negative integer seed below 2^64, got 'x'" --fill random:x --screenshot /tmp/x.png
check "--fill random:SEED needs a non-negative integer seed below 2^64, got '-1'" --fill random:-1 --screenshot /tmp/x.png
# Floating options refuse NaN and infinities, naming the option.
check "--font-px nan is outside 12..40" --font-px nan --screenshot /tmp/x.png
check "--font-px inf is outside 12..40" --font-px inf --screenshot /tmp/x.png
# Present mode draws no text under 14 px: a smaller font is refused there (hostile review 10), taken outside it.
check "--font-px 13 with --present is below 14" --present --font-px 13 --screenshot /tmp/x.png
check "--font-px 12 with --present is below 14" --font-px 12 --present --screenshot /tmp/x.png
check "--bucket-cap-mb nan is outside (0, 1024]" --ddp --bucket-cap-mb nan --screenshot /tmp/x.png
# A given option is never "not given" (that opened a window that never exits).
check "--bench-frames 0 must be at least 1" --bench-frames 0
check "--screenshot '' is empty: give a path" --screenshot ""
check "--export-frames '' is empty: give a path" --export-frames ""
check "--replay '' is empty: give a path" --replay ""
# --format: png, gif, mp4 or pdf, only with --export-frames; gif and mp4 need ffmpeg; pdf a lesson.
check "--format 'jpg' (expected png, gif, mp4 or pdf)" --export-frames /tmp/microddp-viz-frames --format jpg
check "--format pdf needs --lesson L" --export-frames /tmp/microddp-viz-frames --format pdf
check "--format gif needs --export-frames DIR" --format gif --screenshot /tmp/x.png
out=$(env PATH=/nonexistent "$viz" --export-frames /tmp/microddp-viz-frames --format mp4 2>&1 >/dev/null); rc=$?
if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -qF "ffmpeg not found: apt-get install ffmpeg"; then
  echo "FAIL: no ffmpeg on PATH -> rc $rc: $out"; fail=1
else
  echo "ok: no ffmpeg on PATH -> $out"
fi
# Options that would be dropped are refused; --probes names its path.
check "--ddp and --replay x exclude each other" --ddp --replay x --screenshot /tmp/x.png
check "--probes /tmp/p.txt needs --screenshot FILE" --probes /tmp/p.txt
check "--probes '/nonexistent-dir/p.txt' is not writable" --probes /nonexistent-dir/p.txt --screenshot /tmp/x.png
# The window's rank cap (core/ir/limits.h kMaxViewRanks), with its reason.
check "ranks 65 is outside 1..64: the window colours every byte by the ranks it came from" --ranks 65 --screenshot /tmp/x.png
# The buffers must fit the memory budget before anything is allocated.
check "--count 10000000000 on 3 ranks needs" --count 10000000000 --screenshot /tmp/x.png
# A record that does not fit its own world size is refused, not replayed into
# a segfault (core/record/record_io.cpp checks every field).
corpus="$(dirname "$0")/../record/corpus/ring2.json"
if command -v python3 >/dev/null && [ -f "$corpus" ]; then
  bad=$(mktemp)
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["trace"]["initial"].pop(); json.dump(j, open(sys.argv[2], "w"))' "$corpus" "$bad"
  check "'trace.initial' has 1 entries but the record needs 2" --replay "$bad" --screenshot /tmp/x.png
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["trace"]["events"][0][0]["peer"]=999; json.dump(j, open(sys.argv[2], "w"))' "$corpus" "$bad"
  check "peer' is 999, outside -1..1" --replay "$bad" --screenshot /tmp/x.png
  rm -f "$bad"
fi
check "--data has 2 rows (separated by ';') but there are 3 ranks" --data "1,2;3,4" --screenshot /tmp/x.png
check "rank 0 value 0: '1e9' is too large for float16 (largest finite 65504)" --dtype float16 --data "1e9,1,1;1,1,1;1,1,1" --screenshot /tmp/x.png
# --lesson FILE: the loader's "file:line:column: ..." message, exit 2 (no
# position for a file that cannot be opened or is a directory: as `microddp lesson`).
bad_lesson=$(mktemp /tmp/microddp-viz-bad-lesson.XXXXXX)
printf 'title: t\nsetup: {collective: all_reduce}\nbeats:\n  - at: 0\n    txet: typo\n' > "$bad_lesson"
check "$bad_lesson:5:5: unknown key 'txet'" --lesson "$bad_lesson" --screenshot /tmp/x.png
rm -f "$bad_lesson"
check "cannot open /nonexistent-lesson.yaml: No such file or directory" --lesson /nonexistent-lesson.yaml --screenshot /tmp/x.png
check "/tmp is a directory, not a lesson file" --lesson /tmp --screenshot /tmp/x.png
check "--beat 0" --lesson "$(dirname "$0")/../../lessons/02-ring-double-buffering.yaml" --beat 0 --screenshot /tmp/x.png
check "--beat 2 needs --lesson" --beat 2 --screenshot /tmp/x.png
# A lesson's beats choose the run and the view: run options beside it are refused, not dropped.
l02="$(dirname "$0")/../../lessons/02-ring-double-buffering.yaml"
check "--ranks and --lesson exclude each other" --lesson "$l02" --ranks 2 --screenshot /tmp/x.png
check "--view and --lesson exclude each other" --lesson "$l02" --view compare --screenshot /tmp/x.png
check "--ddp and --lesson exclude each other" --lesson "$l02" --ddp --screenshot /tmp/x.png
check "--export-frames /tmp and --screenshot /tmp/x.png exclude each other" --export-frames /tmp --screenshot /tmp/x.png
# A bare lesson name (the README's commands) opens the shipped lesson from any
# directory: the lesson loads, so --beat 0 is what is refused.
for name in 02-ring-double-buffering 02-ring-double-buffering.yaml; do
  (cd /tmp && check "--beat 0 is outside 1..6 (the lesson has 6 beats)" --lesson "$name" --beat 0 --export-frames /tmp/microddp-viz-frames; exit $fail) || fail=1
done
(cd /tmp && check "lesson 'no-such-lesson' not found in " --lesson no-such-lesson --export-frames /tmp/microddp-viz-frames; exit $fail) || fail=1
check "; the lessons: 01-primitives, 02-ring-double-buffering, 03-" --lesson no-such-lesson --screenshot /tmp/x.png
# The prediction source: a bad preset, link or topology is named.
check "unknown preset 'foo'" --preset foo --screenshot /tmp/x.png
check "--preset nvlink and a topology" --preset nvlink --inter infiniband --screenshot /tmp/x.png
check "unknown topology 'dgx-z'" --ranks 8 --nodes 2 --topology dgx-z --screenshot /tmp/x.png
check "--ranks 6 is not divisible by --nodes 4" --ranks 6 --nodes 4 --screenshot /tmp/x.png
check "--nics-per-node 5 is out of range (1..4" --ranks 8 --nodes 2 --nics-per-node 5 --screenshot /tmp/x.png
# --speaker FILE is rewritten every beat: never a file the run reads or writes
# (hostile review, issue 37: --speaker the lesson itself replaced it with notes).
k=$(mktemp -d /tmp/microddp-viz-speaker.XXXXXX)
cp "$l02" "$k/l02.yaml"
cp -r "$(dirname "$0")/../../lessons/data" "$k/"
check "--speaker $k/l02.yaml is the same file as --lesson $k/l02.yaml: the speaker notes would overwrite it" \
  --lesson "$k/l02.yaml" --speaker "$k/l02.yaml" --screenshot "$k/x.png"
(cd "$k" && check "--speaker ./../$(basename "$k")/l02.yaml is the same file as --lesson l02.yaml" \
  --lesson l02.yaml --speaker "./../$(basename "$k")/l02.yaml" --screenshot x.png; exit $fail) || fail=1
if ! cmp -s "$l02" "$k/l02.yaml"; then echo "FAIL: the lesson file was changed"; fail=1; fi
check "--speaker $k/x.png is the same file as --screenshot $k/x.png" --lesson "$l02" --speaker "$k/x.png" --screenshot "$k/x.png"
check "--speaker $k/d.txt is the same file as --describe $k/d.txt" --lesson "$l02" --speaker "$k/d.txt" --describe "$k/d.txt" --screenshot "$k/x.png"
check "--speaker $k/frames/notes.txt is inside --export-frames $k/frames" --lesson "$l02" --speaker "$k/frames/notes.txt" --export-frames "$k/frames"
# The notes are renamed over the path: a link, FIFO or directory there is refused, left as it was (hostile review 10).
echo keep > "$k/target.txt"; ln -s "$k/target.txt" "$k/link.txt"; mkfifo "$k/fifo"
check "--speaker $k/link.txt exists and is not a regular file (a symbolic link)" --lesson "$l02" --speaker "$k/link.txt" --screenshot "$k/x.png"
check "--speaker $k/fifo exists and is not a regular file (a FIFO)" --lesson "$l02" --speaker "$k/fifo" --screenshot "$k/x.png"
check "--speaker $k exists and is not a regular file (a directory)" --lesson "$l02" --speaker "$k" --screenshot "$k/x.png"
if [ ! -L "$k/link.txt" ] || [ ! -p "$k/fifo" ] || [ "$(cat "$k/target.txt")" != keep ]; then
  echo "FAIL: a refused --speaker path was changed"; fail=1; fi
if [ -e "$k/x.png" ] || [ -e "$k/d.txt" ] || [ -e "$k/frames/notes.txt" ]; then echo "FAIL: a refused run wrote a file"; fail=1; fi
rm -rf "$k"
# --export-frames writes every beat: a --beat would be dropped.
check "--beat 3 and --export-frames /tmp/microddp-viz-frames exclude each other (the export writes every beat" \
  --lesson "$l02" --beat 3 --export-frames /tmp/microddp-viz-frames
# The handout's slide on an A4 page: a size that crops it or makes it unreadable is refused.
check "--size 100x100 with --format pdf is outside 800x450 .. 2560x1600" --lesson "$l02" --export-frames /tmp/microddp-viz-frames --format pdf --size 100x100
check "--size 8000x8000 with --format pdf is outside 800x450 .. 2560x1600" --lesson "$l02" --export-frames /tmp/microddp-viz-frames --format pdf --size 8000x8000
# --compare-runs: each record fixes its run; a run option is refused, not dropped.
rec="$(dirname "$0")/../../lessons/data/single-buffered-ring-3x3.json"
check "--algorithm tree and --compare-runs exclude each other" --compare-runs "$rec" "$rec" --algorithm tree --ranks 5 --screenshot /tmp/x.png
check "--ranks 5 and --compare-runs exclude each other" --compare-runs "$rec" "$rec" --ranks 5 --screenshot /tmp/x.png
check "--in-place and --compare-runs exclude each other" --compare-runs "$rec" "$rec" --in-place --screenshot /tmp/x.png
# `microddp lesson --speaker` / --plan print the file and run no check: not with --non-interactive (a CI job would pass untested).
cli="$(dirname "$viz")/microddp"
if [ -x "$cli" ]; then
  for flag in --speaker --plan; do
    out=$("$cli" lesson "$l02" $flag --non-interactive 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -qF "lesson: $flag and --non-interactive exclude each other"; then
      echo "FAIL: microddp lesson $flag --non-interactive -> rc $rc: $out"; fail=1
    else
      echo "ok: microddp lesson $flag --non-interactive -> $out"
    fi
  done
fi
out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$viz" --screenshot /tmp/microddp-viz-nodisplay.png 2>&1); rc=$?
if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "xvfb-run" || ! printf '%s' "$out" | grep -q "microddp run"; then
  echo "FAIL: no display -> rc $rc: $out"; fail=1
else
  echo "ok: no display -> $out"
fi
exit $fail
