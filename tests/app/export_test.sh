#!/bin/sh
# --export-frames under a virtual X display.
#   beats: --lesson 02 writes exactly beat_01.png .. beat_06.png (one per
#          beat, no step_*.png) and beat_NN_answer.png for its three beats
#          that ask (2, 4, 5); beat 1 is the state before step 0: its
#          pixels match the probes of a --screenshot at --beat 1 and not
#          those at --beat 2 (after step 0).
#   gif:   --format gif of the 3-rank ring writes steps.gif, a GIF89a file
#          with 42 frames (ffprobe counts them).
#   mp4:   --format mp4 at an odd size: H.264 (or ffmpeg's mpeg4 where
#          libx264 is missing), yuv420p, padded to even dimensions; an
#          ffmpeg that fails makes the export fail, naming its status.
#   stale: exporting the 2-step ring's PNGs into a folder that holds a
#          longer earlier export (step_00 .. step_05, a beat) removes those
#          frames, says how many, and leaves other files alone.
#   pdf:   --format pdf --lesson 02 writes handout.pdf with one page per
#          beat (6), counted in the file itself (no poppler needed); with
#          --reveal the pages print the answers (checked with pdftotext
#          where poppler-utils is installed).
#   compare_runs: --compare-runs of a 3-rank ring and a 4-rank tree record
#          (`microddp run --save-record`) steps through both runs:
#          --screenshot --step 0 is before step 0, and the --present export
#          writes a different picture per step; --compare-source recorded
#          plots the record's ring and tree rows beside them, and is "not
#          available" under all_gather (the record is all_reduce).
#   hung_ffmpeg: a fake ffmpeg that writes part of its output and never
#          exits is killed after MICRODDP_FFMPEG_TIMEOUT_S; the export
#          fails (exit 1) naming ffmpeg, the limit and the file, and
#          leaves neither the partial file nor the scratch frames.
# Exit 77 (CTest: skipped) when xvfb-run, or for gif/mp4 ffmpeg/ffprobe, is missing.
# usage: export_test.sh beats|gif|mp4|stale|hung_ffmpeg|pdf|compare_runs MICRODDP_VIZ CHECK_PNG WORKDIR
set -u
mode=$1 viz=$2 check=$3 dir=$4
lesson="$(dirname "$0")/../../lessons/02-ring-double-buffering.yaml"
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run not found (apt-get install xvfb)"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail=0
case $mode in
beats)
  out=$(xvfb-run -a "$viz" --export-frames "$dir/beats" --lesson "$lesson") || { echo "export failed: $out"; exit 1; }
  echo "$out"
  names=$(cd "$dir/beats" && ls | tr '\n' ' ')
  if [ "$names" != "beat_01.png beat_02.png beat_02_answer.png beat_03.png beat_04.png beat_04_answer.png beat_05.png beat_05_answer.png beat_06.png " ]; then
    echo "FAIL: files '$names', expected beat_01.png .. beat_06.png and beat_02/04/05_answer.png"; fail=1
  fi
  if ! printf '%s\n' "$out" | grep -qF "beat_02_answer.png (beat 2 of 6 answered, after step 0 · 1 of 2 steps run)"; then
    echo "FAIL: beat 2's answer slide is not the state after step 0"; fail=1
  fi
  if ! printf '%s\n' "$out" | grep -qF "beat_01.png (beat 1 of 6, before step 0 · 0 of 2 steps run)"; then
    echo "FAIL: beat 1 is not shown before step 0"; fail=1
  fi
  if ! printf '%s\n' "$out" | grep -qF "beat_02.png (beat 2 of 6, after step 0 · 1 of 2 steps run)"; then
    echo "FAIL: beat 2 is not shown after step 0"; fail=1
  fi
  for b in 1 2; do
    xvfb-run -a "$viz" --screenshot "$dir/shot$b.png" --lesson "$lesson" --beat $b --probes "$dir/beat$b.probes" >/dev/null ||
      { echo "FAIL: screenshot at beat $b"; exit 1; }
  done
  # Before step 0 only the 9 input cells are filled; a cell whose value
  # covers the probe spot has none, so at least 4 probes (not all 9).
  if ! "$check" "$dir/beats/beat_01.png" "$dir/beat1.probes" 1280 720 4; then
    echo "FAIL: beat_01.png differs from the window at beat 1"; fail=1
  fi
  if "$check" "$dir/beats/beat_01.png" "$dir/beat2.probes" 1280 720 4 >/dev/null 2>&1; then
    echo "FAIL: beat_01.png matches the state after step 0 (beat 2)"; fail=1
  fi
  ;;
gif)
  if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
    echo "SKIP: ffmpeg not found (apt-get install ffmpeg)"
    exit 77
  fi
  xvfb-run -a "$viz" --export-frames "$dir" --format gif --size 640x360 \
    --collective all_reduce --algorithm ring_unchunked --ranks 3 --data "1,2,3;4,5,6;7,8,9" || exit 1
  magic=$(head -c 6 "$dir/steps.gif")
  [ "$magic" = "GIF89a" ] || { echo "FAIL: header '$magic', expected GIF89a"; fail=1; }
  # 6 still frames, 12 per step for 2 steps, 12 still frames.
  frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$dir/steps.gif")
  [ "$frames" = 42 ] || { echo "FAIL: $frames frames, expected 42"; fail=1; }
  [ ! -e "$dir/.frames" ] || { echo "FAIL: the scratch frames were left in $dir/.frames"; fail=1; }
  ;;
mp4)
  if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
    echo "SKIP: ffmpeg not found (apt-get install ffmpeg)"
    exit 77
  fi
  # An odd size: padded to even dimensions for yuv420p.
  xvfb-run -a "$viz" --export-frames "$dir" --format mp4 --size 641x361 || exit 1
  got=$(ffprobe -v error -count_frames -select_streams v:0 \
        -show_entries stream=codec_name,pix_fmt,width,height,nb_read_frames -of csv=p=0 "$dir/steps.mp4")
  case $got in
    h264,642,362,yuv420p,42|mpeg4,642,362,yuv420p,42) ;;
    *) echo "FAIL: steps.mp4 is '$got', expected h264 (or mpeg4),642,362,yuv420p,42"; fail=1 ;;
  esac
  # An ffmpeg that fails: exit 1 naming its status, no scratch frames left.
  fake=$dir/fake-bin
  mkdir -p "$fake"
  printf '#!/bin/sh\nexit 3\n' > "$fake/ffmpeg"
  chmod +x "$fake/ffmpeg"
  out=$(PATH="$fake:$PATH" xvfb-run -a "$viz" --export-frames "$dir/failed" --format gif 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! printf '%s' "$out" | grep -qF "error: ffmpeg exited with status 3 writing $dir/failed/steps.gif"; then
    echo "FAIL: a failing ffmpeg -> rc $rc: $out"; fail=1
  fi
  [ ! -e "$dir/failed/.frames" ] || { echo "FAIL: the scratch frames were left after ffmpeg failed"; fail=1; }
  ;;
stale)
  for f in step_00.png step_01.png step_02.png step_03.png step_04.png step_05.png beat_03.png notes.txt step_1.png; do
    echo old > "$dir/$f"
  done
  out=$(xvfb-run -a "$viz" --export-frames "$dir" --size 640x360 2>&1) || { echo "export failed: $out"; exit 1; }
  echo "$out"
  if ! printf '%s\n' "$out" | grep -qxF "removed 7 frame files (step_NN.png, beat_NN.png, beat_NN_answer.png) of an earlier export from $dir"; then
    echo "FAIL: no line saying that 7 stale frames were removed"; fail=1
  fi
  names=$(cd "$dir" && LC_ALL=C ls | tr '\n' ' ')
  if [ "$names" != "notes.txt step_00.png step_01.png step_02.png step_1.png " ]; then
    echo "FAIL: files '$names', expected notes.txt step_00.png step_01.png step_02.png step_1.png"; fail=1
  fi
  [ "$(cat "$dir/notes.txt")" = old ] || { echo "FAIL: notes.txt was changed"; fail=1; }
  for f in step_00.png step_02.png; do
    [ "$(head -c 4 "$dir/$f" | tail -c 3)" = PNG ] || { echo "FAIL: $f is not this export's PNG"; fail=1; }
  done
  ;;
hung_ffmpeg)
  fake=$dir/fake-bin
  mkdir -p "$fake"
  # The last argument is the output file.
  printf '#!/bin/sh\nfor last; do :; done\necho partial > "$last"\nexec sleep 600\n' > "$fake/ffmpeg"
  chmod +x "$fake/ffmpeg"
  mkdir -p "$dir/hung/.frames" && echo precious > "$dir/hung/.frames/mine.txt"
  start=$(date +%s)
  # The app's own exit status, not xvfb-run's: xvfb-run exits 5 when its
  # temporary folder cannot be cleaned up (seen once under a parallel ctest).
  app_rc() { printf '%s\n' "$1" | sed -n 's/^app-exit=//p' | tail -1; }
  out=$(MICRODDP_FFMPEG_TIMEOUT_S=2 PATH="$fake:$PATH" xvfb-run -a sh -c '"$@"; echo "app-exit=$?"' sh "$viz" --export-frames "$dir/hung" --format mp4 2>&1); rc=$(app_rc "$out")
  took=$(( $(date +%s) - start ))
  if [ "$rc" != 1 ] || ! printf '%s' "$out" | grep -qxF "error: ffmpeg did not finish within 2 s writing $dir/hung/steps.mp4: stopped, the file removed (limit: MICRODDP_FFMPEG_TIMEOUT_S)"; then
    echo "FAIL: a hung ffmpeg -> rc $rc: $out"; fail=1
  fi
  [ ! -e "$dir/hung/steps.mp4" ] || { echo "FAIL: the partial steps.mp4 was left"; fail=1; }
  ls -A "$dir/hung" | grep -q '^\.microddp-frames-' && { echo "FAIL: the scratch frames were left after ffmpeg was stopped"; fail=1; }
  # ... and a folder of the user's named .frames is not ours to touch
  [ "$(cat "$dir/hung/.frames/mine.txt")" = "precious" ] || { echo "FAIL: the user's .frames/mine.txt was touched"; fail=1; }
  # a bad limit is refused before any frame is drawn: exit 2, nothing left
  out=$(MICRODDP_FFMPEG_TIMEOUT_S=-1 PATH="$fake:$PATH" xvfb-run -a sh -c '"$@"; echo "app-exit=$?"' sh "$viz" --export-frames "$dir/hung" --format mp4 2>&1); rc=$(app_rc "$out")
  if [ "$rc" != 2 ] || ! printf '%s' "$out" | grep -qF "error: MICRODDP_FFMPEG_TIMEOUT_S '-1' is not a number of seconds in (0, 1e6]"; then
    echo "FAIL: MICRODDP_FFMPEG_TIMEOUT_S=-1 -> rc $rc: $out"; fail=1
  fi
  ls -A "$dir/hung" | grep -q '^\.microddp-frames-' && { echo "FAIL: a refused export left scratch frames"; fail=1; }
  # The frames take a few seconds under Xvfb; a minute means the limit was not applied.
  [ $took -lt 60 ] || { echo "FAIL: the export took $took s with a 2 s limit"; fail=1; }
  ;;
pdf)
  # The handout: one page per beat of lesson 02 (its YAML's "  - at:" lines), counted
  # as the PDF's page objects ("/Type /Page", not "/Type /Pages"); no tool beyond grep.
  out=$(xvfb-run -a "$viz" --export-frames "$dir" --format pdf --lesson "$lesson") || { echo "export failed: $out"; exit 1; }
  echo "$out"
  beats=$(grep -c '^  - at:' "$lesson")
  [ "$beats" = 6 ] || { echo "FAIL: lesson 02 has $beats beats, the test expects 6"; fail=1; }
  magic=$(head -c 5 "$dir/handout.pdf")
  [ "$magic" = "%PDF-" ] || { echo "FAIL: header '$magic', expected %PDF-"; fail=1; }
  pages=$(grep -a -c '/Type /Page[^s]' "$dir/handout.pdf")
  [ "$pages" = "$beats" ] || { echo "FAIL: $pages pages, expected $beats (one per beat)"; fail=1; }
  tail -c 6 "$dir/handout.pdf" | grep -q '%%EOF' || { echo "FAIL: the PDF does not end with %%EOF"; fail=1; }
  printf '%s\n' "$out" | grep -qF "handout.pdf ($beats pages, one per beat of $beats)" ||
    { echo "FAIL: no line naming the handout and its pages"; fail=1; }
  # --reveal: the pages print each question's answer (beat 2: 3) [8, 10, 12]), as the PNG slides show it.
  out=$(xvfb-run -a "$viz" --export-frames "$dir/reveal" --format pdf --lesson "$lesson" --reveal) || { echo "export failed: $out"; exit 1; }
  if command -v pdftotext >/dev/null 2>&1; then
    pdftotext "$dir/handout.pdf" "$dir/plain.txt" && pdftotext "$dir/reveal/handout.pdf" "$dir/reveal.txt" || fail=1
    grep -qF 'Answer: 3) [8, 10, 12]' "$dir/reveal.txt" || { echo "FAIL: --reveal: no 'Answer: 3) [8, 10, 12]' in the handout"; fail=1; }
    if grep -qF 'Answer: 3) [8, 10, 12]' "$dir/plain.txt"; then echo "FAIL: the handout without --reveal prints the answer"; fail=1; fi
  else
    echo "note: pdftotext not found (apt-get install poppler-utils): the --reveal handout's text not read"
  fi
  ;;
compare_runs)
  cli="$(dirname "$viz")/microddp"
  "$cli" run --algorithm ring --ranks 3 --save-record "$dir/a.json" >/dev/null || { echo "FAIL: microddp run (ring)"; exit 1; }
  "$cli" run --algorithm tree --ranks 4 --save-record "$dir/b.json" >/dev/null || { echo "FAIL: microddp run (tree)"; exit 1; }
  # --step 0: both runs before step 0 (it showed the last step).
  out=$(xvfb-run -a "$viz" --compare-runs "$dir/a.json" "$dir/b.json" --step 0 --screenshot "$dir/s0.png" --describe "$dir/s0.txt") ||
    { echo "screenshot failed: $out"; exit 1; }
  grep -q '^compare: .*, before step 0 · ' "$dir/s0.txt" || { echo "FAIL: --step 0 is not before step 0:"; cat "$dir/s0.txt"; fail=1; }
  grep -q '^buffers: before step 0' "$dir/s0.txt" || { echo "FAIL: --step 0: the buffers are not before step 0:"; cat "$dir/s0.txt"; fail=1; }
  # Without --step it opens at the end, each run whole.
  xvfb-run -a "$viz" --compare-runs "$dir/a.json" "$dir/b.json" --screenshot "$dir/end.png" --describe "$dir/end.txt" >/dev/null ||
    { echo "FAIL: screenshot without --step"; exit 1; }
  grep -q '^compare: .*, after step [0-9]* · \([0-9]*\) of \1 steps run; ' "$dir/end.txt" || { echo "FAIL: not at the end without --step:"; cat "$dir/end.txt"; fail=1; }
  # The export steps through both runs: every frame differs, and each is described at its step.
  out=$(xvfb-run -a "$viz" --compare-runs "$dir/a.json" "$dir/b.json" --present --export-frames "$dir/frames" \
        --describe "$dir/frames.txt") || { echo "export failed: $out"; exit 1; }
  n=$(ls "$dir/frames" | grep -c '^step_[0-9]*\.png$')
  distinct=$(cd "$dir/frames" && md5sum step_*.png | cut -d' ' -f1 | sort -u | wc -l)
  [ "$n" -ge 3 ] && [ "$distinct" = "$n" ] || { echo "FAIL: $n frames, $distinct distinct"; fail=1; }
  grep -q '^compare: .*, before step 0 · ' "$dir/frames.txt" || { echo "FAIL: step_00 is not before step 0"; fail=1; }
  [ "$(grep -c '^compare: .*, before step 0 · ' "$dir/frames.txt")" = 1 ] || { echo "FAIL: several frames say 'before step 0'"; fail=1; }
  # The recorded lab run beside the two runs: its ring and tree rows, by the runs' algorithms
  # (it said "has no rows of A: ring (a.json)"); the bundled record has 7 sizes.
  xvfb-run -a "$viz" --compare-runs "$dir/a.json" "$dir/b.json" --compare-source recorded --screenshot "$dir/rec.png" \
    --describe "$dir/rec.txt" >/dev/null || { echo "FAIL: --compare-runs --compare-source recorded"; exit 1; }
  grep -q '^compare: A: ring (a.json) B: tree (b.json), .*; sweep 7 points (done)$' "$dir/rec.txt" && ! grep -q '^source error' "$dir/rec.txt" ||
    { echo "FAIL: the recorded run is not plotted beside the runs:"; cat "$dir/rec.txt"; fail=1; }
  # An all_reduce record is not plotted under all_gather: the source says why not.
  xvfb-run -a "$viz" --view compare --collective all_gather --ranks 8 --compare-source recorded --screenshot "$dir/ag.png" \
    --describe "$dir/ag.txt" >/dev/null || { echo "FAIL: all_gather --compare-source recorded"; exit 1; }
  grep -qx 'source error: the record is all_reduce, this view all_gather' "$dir/ag.txt" && grep -q '; sweep 0 points ' "$dir/ag.txt" ||
    { echo "FAIL: the all_reduce record under all_gather:"; cat "$dir/ag.txt"; fail=1; }
  ;;
*) echo "usage: export_test.sh beats|gif|mp4|stale|hung_ffmpeg|pdf|compare_runs MICRODDP_VIZ CHECK_PNG WORKDIR"; exit 2 ;;
esac
[ $fail = 0 ] && echo "ok: export $mode"
exit $fail
