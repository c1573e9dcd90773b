#!/usr/bin/env bash
# Prints `microddp run --json` and `--steps` for a fixed list of specs, with
# measured times blanked, so that a restructuring can be shown to change no
# output: run it before and after and diff the two files.
#   scripts/golden-specs.sh build/release/app/microddp > before.txt
set -uo pipefail
BIN=${1:-build/release/app/microddp}
specs=(
  "-c all_reduce -a ring_unchunked -n 3 --data 1,2,3;4,5,6;7,8,9"
  "-c all_reduce -a ring -n 3 --data 1,2,3;4,5,6;7,8,9"
  "-c all_reduce -a ring -n 5 --count 13 --dtype float32 --fill random:7"
  "-c all_reduce -a ring -n 4 --count 17 --segments 3 --dtype int64 --fill iota"
  "-c all_reduce -a naive -n 3 --count 7 --dtype float16 --op avg --fill random:3"
  "-c all_reduce -a tree -n 5 --count 9 --dtype bfloat16 --op max --fill random:4"
  "-c all_reduce -a recursive_doubling -n 6 --count 11 --dtype float64 --op prod --fill rank"
  "-c all_reduce -a halving_doubling -n 7 --count 15 --dtype int32 --op min --fill random:5"
  "-c all_reduce -a halving_doubling -n 8 --count 2 --dtype float32 --fill iota"
  "-c all_reduce -a ring -n 1 --count 4 --fill iota"
  "-c all_reduce -a ring -n 3 --count 0"
  "-c all_reduce -a ring -n 3 --count 5 --in-place --fill iota"
  "-c broadcast -a naive -n 3 --count 5 --root 1 --fill iota"
  "-c broadcast -a tree -n 6 --count 4 --root 2 --dtype float16 --fill random:1"
  "-c broadcast -a binomial -n 7 --count 3 --root 6 --dtype int64 --fill rank"
  "-c reduce -a naive -n 4 --count 5 --root 3 --op sum --fill iota"
  "-c reduce -a tree -n 5 --count 6 --root 0 --dtype float32 --op avg --fill random:9"
  "-c reduce -a binomial -n 6 --count 3 --root 4 --dtype bfloat16 --op prod --fill random:2"
  "-c gather -a naive -n 3 --counts 1,2,3 --root 1 --fill iota"
  "-c gather -a tree -n 5 --count 2 --root 2 --dtype float64 --fill rank"
  "-c gather -a binomial -n 7 --counts 3,0,1,2,5,1,1 --root 0 --fill iota"
  "-c scatter -a naive -n 4 --count 3 --root 2 --fill iota"
  "-c scatter -a tree -n 5 --counts 2,1,0,3,1 --root 1 --dtype int32 --fill iota"
  "-c scatter -a binomial -n 6 --count 2 --root 5 --dtype float16 --fill random:8"
  "-c barrier -a naive -n 3"
  "-c barrier -a tree -n 5"
  "-c barrier -a dissemination -n 7"
  "-c all_gather -a naive -n 3 --counts 2,0,3 --fill iota"
  "-c all_gather -a ring -n 5 --count 3 --dtype bfloat16 --fill random:6"
  "-c all_gather -a recursive_doubling -n 6 --count 2 --dtype int64 --fill rank"
  "-c reduce_scatter -a naive -n 3 --count 4 --dtype float32 --op max --fill random:11"
  "-c reduce_scatter -a ring -n 5 --counts 1,2,3,0,2 --fill iota"
  "-c reduce_scatter -a halving_doubling -n 6 --count 3 --dtype float64 --op avg --fill random:12"
  "-c all_to_all -a naive -n 3 --count 2 --fill iota"
  "-c all_to_all -a naive -n 5 --count 3 --dtype float16 --fill random:13"
  "-c all_reduce -a ring -n 3 --dtype float32 --data 1.5,nan,inf;-inf,-0.0,2;3,4,5"
)
for s in "${specs[@]}"; do
  IFS=' ' read -r -a args <<<"$s"
  for out in --json --steps; do
    echo "### $s $out"
    "$BIN" run "${args[@]}" $out 2>&1 | sed -E \
      -e 's/"time_us": *[-0-9.e+]+/"time_us": T/g' \
      -e 's/"(median|p10|p90|first_run|median_total|first_run_total)_us": *[-0-9.e+]+/"\1_us": T/g' \
      -e 's/"repetitions": *[0-9]+/"repetitions": N/g' \
      -e 's/[0-9]+ (reps|warm runs)\b/N \1/g' \
      -e 's/[0-9]+(\.[0-9]+)? (us|µs|ms|s)\b/T \2/g'
    echo "exit ${PIPESTATUS[0]}"
  done
done
