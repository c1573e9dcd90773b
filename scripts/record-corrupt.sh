#!/usr/bin/env bash
# Records the corrupting one-buffer ring that lesson 02 beat 5 shows
# (lessons/data/single-buffered-ring-3x3.json, the beat's `recorded:`):
#   microddp run --algorithm single_buffered_ring --ranks 3 --data "1,2,3;4,5,6;7,8,9"
#     --delay -1,300 --seeds 30 --save-record FILE
# i.e. the beat's setup, every send's read delayed by a seeded random 0..300
# µs, seeds 1..30 tried until one corrupts the outputs (the lesson check's
# search). Then adds the machine (lscpu), the date and the command to the
# record ("recorded", core/record/record_io.h). Needs jq.
# Usage: scripts/record-corrupt.sh MICRODDP OUT.json
# Exit: 0 written; 1 no seed corrupted (run it again), microddp failed, or it
# wrote no record (an empty file, or not JSON with a record's keys); 2 a bad
# argument (MICRODDP not an executable, OUT not writable, no jq), said before
# the run, as scripts/record-lab.sh does.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 MICRODDP OUT.json" >&2
  exit 2
fi
bin=$1 out=$2
bad() { echo "record-corrupt: $*" >&2; exit 2; }
[ -x "$bin" ] && [ ! -d "$bin" ] || bad "MICRODDP '$bin' is not an executable file"
dir=$(dirname -- "$out")
[ -d "$dir" ] || bad "OUT '$out': the directory '$dir' does not exist"
[ ! -d "$out" ] || bad "OUT '$out' is a directory"
# A file can be made there (as root, test -w says yes even on /proc).
probe="$dir/.record-corrupt.$$"
{ : >"$probe"; } 2>/dev/null || bad "OUT '$out': cannot write in the directory '$dir'"
rm -f -- "$probe"
command -v jq >/dev/null || bad "jq is not installed (apt-get install jq)"
args=(run --algorithm single_buffered_ring --ranks 3 --data "1,2,3;4,5,6;7,8,9" --delay -1,300 --seeds 30)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rc=0
text=$("$bin" "${args[@]}" --save-record "$tmp" 2>&1) || rc=$?
# run's exit: 1 = a seed corrupted the outputs (what we record), 0 = none did
if [ "$rc" -eq 0 ]; then echo "$text" >&2; echo "record-corrupt: no seed corrupted the outputs; run it again" >&2; exit 1; fi
if [ "$rc" -ne 1 ]; then echo "$text" >&2; echo "record-corrupt: microddp run failed (exit $rc)" >&2; exit 1; fi
# a run that exits 1 without a record (a crash, a wrong MICRODDP) must not pass for one
if [ ! -s "$tmp" ]; then
  echo "$text" >&2; echo "record-corrupt: $bin exited 1 but wrote no record (empty --save-record file)" >&2; exit 1
fi
if ! jq -e 'type == "object" and has("format") and has("spec") and has("inputs") and has("outputs") and has("trace")
            and has("broken") and has("delay")' "$tmp" >/dev/null 2>&1; then
  echo "$text" >&2
  echo "record-corrupt: $bin wrote no record (not JSON with format, spec, inputs, outputs, trace, broken, delay)" >&2
  exit 1
fi
# the command as one would type it: arguments with ; or spaces in double quotes
typed="microddp"
for a in "${args[@]}"; do
  if [[ "$a" =~ ^[A-Za-z0-9,._/=-]+$ ]]; then typed+=" $a"; else typed+=" \"$a\""; fi
done
model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cpus=$(nproc)
jq -c --arg machine "$model, $cpus vCPUs (lscpu)" --arg date "$(date -u +%F)" \
  --arg command "$typed --save-record $(basename "$out")" \
  '. + {recorded: {machine: $machine, date: $date, command: $command}}' "$tmp" >"$out"
echo "$text"
echo "wrote $out"
