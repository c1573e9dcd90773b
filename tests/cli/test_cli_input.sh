#!/usr/bin/env bash
# Bad input on the command line: exit 2 with one "error:" line naming the
# value, every numeric option bounded, one rank cap and one memory budget for
# every command.
. "$(dirname "$0")/cli_lib.sh" "$1"
# bad input: exit 2, one error line naming the value
expect 2 "error: unknown algorithm 'rign' for all_reduce" -- run -c all_reduce -a rign -n 3
expect 2 "error: unknown collective 'allreduce'" -- run -c allreduce -n 3
expect 2 "error: unknown dtype 'float8'" -- run --dtype float8
expect 2 "error: unknown reduce op 'mean'" -- run --op mean
expect 2 "error: --ranks must be >= 1, got 0" -- run -n 0
expect 2 "error: root 3 is out of range for world size 3" -- run -c broadcast -a tree -n 3 --root 3
expect 2 "error: --data has 2 rows" -- run -n 3 --data "1;2"
expect 2 "error: rank 1 has 2 values but all_reduce" -- run -n 3 --data "1,2,3;4,5;7,8,9"
expect 2 "error: counts has 2 entries but the world size is 3" -- run -c gather -a naive -n 3 --counts 1,2
expect 2 "rank 0 value 0: '3000000000' does not fit int32" -- run -n 2 --dtype int32 --data "3000000000;1"
expect 2 "is not a number" -- run -n 2 --data "1,x;1,2"
expect 2 "error: --ranks was given 2 times; give it once" -- run -n 3 --ranks 4
expect 2 "error: --record-overhead -1 must be 0 (off) to 1000 pairs" -- bench -b 4K -e 4K --record-overhead -1
expect 0 "rec.ovh" -- bench -b 4K -e 8K -n 2 -w 1 --record-overhead 2
# Issue 38: every numeric option bounded and named, refused before any output.
# -f: a factor that cannot grow the size is refused, naming it and the factor that fits (it printed one size forever)
refuse "error: -f 1.0000001 from -b 8 to -e 1073741824 makes more than 1000 sizes (each at least one element, 4 B, above the one before): give -f 1.0164 or more, or a narrower -b .. -e" -- predict --table -b 8 -e 1G -f 1.0000001 --ranks 16 --preset nvlink
# ... and a small one steps in whole elements: every size once (-f 1.01 repeated each small size 7-11 times)
out=$("$BIN" predict --table -b 8 -e 64 -f 1.01 --ranks 16 --preset nvlink | awk 'NR > 2 && $1 ~ /^[0-9]+$/ { printf "%s ", $1 }')
if [ "$out" != "8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 " ]; then
  echo "FAIL: predict --table -f 1.01 sizes: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# all_gather's size counts every rank's block: one element more is 4 x 4 B
out=$("$BIN" predict --table -c all_gather -b 16 -e 64 -f 1.01 --ranks 4 --preset nvlink | awk 'NR > 2 && $1 ~ /^[0-9]+$/ { printf "%s ", $1 }')
if [ "$out" != "16 32 48 64 " ]; then
  echo "FAIL: predict --table -c all_gather -f 1.01 sizes: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# bench: the same parser and the same steps; it says what -f must be (it said "Could not convert")
refuse "error: -f 1.01 from -b 4096 to -e 67108864 makes more than 100 sizes (each at least one element, 4 B, above the one before; bench times each size 9 passes x 25 iterations per algorithm): give -f 1.103 or more, or a narrower -b .. -e" -- bench -f 1.01
refuse "error: -f abc must be a number above 1 (each size is the one before times it, e.g. 2 or 1.5)" -- bench -f abc
refuse "error: -f 1 must be a number above 1 (each size is the one before times it, e.g. 2 or 1.5)" -- predict --table -f 1 --preset nvlink
refuse "error: -f nan must be a number above 1 (each size is the one before times it, e.g. 2 or 1.5)" -- predict -f nan --preset nvlink
out=$("$BIN" bench -b 4K -e 8K -f 1.5 -n 1 -w 0 --passes 1 --json 2>/dev/null | grep -o '"bytes": [0-9]*' | cut -d" " -f2 | tr '\n' ' ')
if [ "$out" != "4096 6144 8192 " ]; then echo "FAIL: bench -f 1.5 sizes: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# --repeat-steps: a count that would run for minutes is refused before it starts, with the estimate
refuse "error: --repeat-steps 100000: 14 steps x 100000 = 1400000 step repetitions, each restoring every rank's memory (61.0 MiB on 8 ranks) between two barriers: 81.5 TiB copied, about " -- run -n 8 --repeat-steps 100000 --count 1000000
expect 2 "a run may ask for at most 60 s of repetitions: give --repeat-steps " -- run -n 8 --repeat-steps 100000 --count 1000000
expect 0 "ok: matches the reference" -- run -n 2 --repeat-steps 1000 --count 8
# --nodes: one rule for run, predict and bench (and the window: tests/app/bad_options_test.sh); 0 ran as one node in predict
for cmd in "run" "predict --preset nvlink -n 4" "bench"; do
  refuse "error: --nodes 0 must be at least 1" -- $cmd --nodes 0
  refuse "error: --nodes -2 must be at least 1" -- $cmd --nodes -2
done
refuse "error: --nics-per-node 0 is out of range" -- bench --nics-per-node 0
refuse "error: --ranks 4 is not divisible by --nodes 3 (placement is contiguous: every node holds the same number of ranks)" -- bench --ranks 4 --nodes 3
refuse "error: --ranks 4 is not divisible by --nodes 3 (placement is contiguous: every node holds the same number of ranks)" -- run --ranks 4 --nodes 3
refuse "error: --nics-per-node -1 is out of range" -- predict --nics-per-node -1 --preset nvlink
# the option the user gave: the named topology's two nodes, not a --nodes 2 never typed
refuse "error: --ranks 7 is not divisible by the 2 nodes of --topology lab (placement is contiguous: every node holds the same number of ranks; give a multiple of 2, or --nodes N)" -- predict --topology lab -n 7
refuse "error: --ranks 7 is not divisible by --nodes 3" -- predict --topology lab -n 7 --nodes 3
# calibrate refuses before its header
refuse "error: calibrate --max 107374182400 (a ping-pong of 68719476736 B) needs" -- calibrate --max 100G
refuse "error: calibrate: sizes 64..8 B (need 4 <= min <= max)" -- calibrate --min 64 --max 8
# a lesson's unterminated quote: yaml-cpp's message at the opening quote (it said "the lesson needs 'setup'")
UQ=$(mktemp /tmp/microddp-cli-uq.XXXXXX.yaml)
printf 'title: "t\nsetup: {collective: all_reduce, ranks: 3}\nbeats:\n  - text: hi\n' >"$UQ"
refuse "error: $UQ:1:8: not valid YAML: illegal EOF in scalar (the quoted string that starts here is never closed)" -- lesson "$UQ" --non-interactive
rm -f "$UQ"
# an ALPHA,BW link that would make predictions inf or NaN, or written in hex (core/model/topology_model.h parse_link)
LINKERR="needs ALPHA,BW in decimal: α in seconds from 0 to 10, bandwidth in bytes per second from 1 to 1e+15"
refuse "error: --inter '1e308,1e9' $LINKERR" -- predict --ranks 8 --nodes 2 --intra nvlink --inter 1e308,1e9
refuse "error: --inter '0,1e-300' $LINKERR" -- predict --ranks 8 --nodes 2 --intra nvlink --inter 0,1e-300
refuse "error: --intra '0x1p-10,0x10' $LINKERR" -- predict --ranks 8 --nodes 2 --intra 0x1p-10,0x10 --inter infiniband
# one rank cap and one memory budget for every command (core/ir/limits.h)
expect 2 "error: --ranks 4096 is more than this tool runs (at most 256)" -- predict -n 4096 --preset nvlink
expect 2 "error: a schedule of 256 ranks in 4096 segments needs" -- predict -n 256 -a ring --segments 4096 --preset nvlink
expect 2 "error: a schedule of 256 ranks in 4096 segments needs" -- run -n 256 --segments 4096
expect 2 "error: calibrate --max 107374182400 (a ping-pong of 68719476736 B) needs" -- calibrate --min 1G --max 100G --out /tmp/microddp-cli-unwritten.json
expect 2 "error: ddp with 64 ranks, depth 256, width 4096, batch 64 needs" -- ddp --ranks 64 --depth 256 --width 4096
cli_summary
