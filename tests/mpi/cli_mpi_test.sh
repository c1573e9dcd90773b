#!/bin/sh
# The MPI paths of the command line and the app, as a user types them.
# usage: cli_mpi_test.sh MODE MPIRUN MICRODDP [MICRODDP_VIZ] WORKDIR
#   bench_reference  mpirun -n 2 bench --backend mpi --reference mpi --check --json:
#                    one "mpi" row per size (4K..64K: 5), every row #wrong 0
#   replay           mpirun -n 2 run --backend mpi --save-record, then
#                    microddp-viz --replay under xvfb-run writes a PNG (77 without xvfb-run)
#   repeat_steps     mpirun -n 3 run --backend mpi --repeat-steps 4: every step
#                    repeated 4 times warm, outputs ok
#   nccl_nogpu       bench --reference nccl exits 2 naming the missing GPU / CUDA
#                    backend (77 where a GPU is present)
# MPIRUN is the launcher and its options, one word with spaces (e.g. "mpiexec --oversubscribe").
set -u
mode=$1 mpirun=$2 microddp=$3
case $mode in
bench_reference)
  dir=$4
  mkdir -p "$dir" || exit 1
  out=$dir/bench_reference.jsonl
  $mpirun -n 2 "$microddp" bench --backend mpi --reference mpi -b 4K -e 64K -n 5 -w 1 --check --json >"$out" || {
    echo "bench exited $?"; cat "$out"; exit 1; }
  cat "$out"
  lib=$(grep -c '"algorithm": "mpi"' "$out")
  ours=$(grep -c '"algorithm": "ring"' "$out")
  bad=$(grep -vc '"wrong": 0' "$out")
  [ "$lib" = 5 ] || { echo "expected 5 rows with algorithm \"mpi\", got $lib"; exit 1; }
  [ "$ours" = 5 ] || { echo "expected 5 rows with algorithm \"ring\", got $ours"; exit 1; }
  [ "$bad" = 0 ] || { echo "$bad rows without \"wrong\": 0"; exit 1; }
  grep '"algorithm": "mpi"' "$out" | grep -q '"backend": "mpi"' || { echo "mpi rows lack backend mpi"; exit 1; }
  # Open MPI's algorithm on every mpi row; on Open MPI 4.1 with the default
  # MCA settings, its fixed rule at 2 ranks (coll_tuned_decision_fixed.c):
  # ring below 8 B and from 4 KiB, recursive doubling 8 KiB, ring 16-32 KiB,
  # segmented ring 64 KiB.
  named=$(grep '"algorithm": "mpi"' "$out" | grep -c '"mpi_algorithm": "')
  [ "$named" = 5 ] || { echo "expected 5 mpi rows with mpi_algorithm, got $named"; exit 1; }
  if ompi_info --version 2>/dev/null | grep -q 'v4\.1' && ! env | grep -q '^OMPI_MCA_coll'; then
    got=$(grep '"algorithm": "mpi"' "$out" | sed 's/.*"mpi_algorithm": "\([a-z_]*\) (Open MPI 4.1 fixed rule)".*/\1/' | tr '\n' ' ')
    [ "$got" = "ring recursive_doubling ring ring segmented_ring " ] || { echo "fixed rule names: $got"; exit 1; }
  fi
  forced=$($mpirun -n 2 "$microddp" bench --backend mpi --reference mpi -b 4K -e 4K -n 2 -w 1 \
    --mpi-algorithm recursive_doubling) || { echo "bench --mpi-algorithm exited $?"; exit 1; }
  echo "$forced" | grep -qx "# Open MPI's algorithm : all_reduce on 2 ranks, 4096 B: recursive_doubling (forced: coll_tuned_allreduce_algorithm)" ||
    { echo "$forced"; echo "the forced algorithm is not named"; exit 1; }
  # reduce_scatter with equal counts is MPI_Reduce_scatter_block: forced
  # through its own variable (read back through MPI_T for the label).
  forced=$($mpirun -n 2 "$microddp" bench --backend mpi --reference mpi --collective reduce_scatter -b 4K -e 4K -n 2 -w 1 \
    --mpi-algorithm recursive_halving) || { echo "bench --collective reduce_scatter --mpi-algorithm exited $?"; exit 1; }
  echo "$forced" | grep -qx "# Open MPI's algorithm : reduce_scatter on 2 ranks, 4096 B: recursive_halving (forced: coll_tuned_reduce_scatter_block_algorithm)" ||
    { echo "$forced"; echo "the forced reduce_scatter_block algorithm is not named"; exit 1; }
  echo "PASS: 5 mpi rows, 5 ring rows, #wrong 0, Open MPI's algorithm named (fixed rule and forced)"
  ;;
replay)
  viz=$4 dir=$5
  if ! command -v xvfb-run >/dev/null 2>&1; then echo "SKIP: xvfb-run not found"; exit 77; fi
  mkdir -p "$dir" || exit 1
  rec=$dir/replay_mpi.json png=$dir/replay_mpi.png
  rm -f "$rec" "$png"
  $mpirun -n 2 "$microddp" run --backend mpi --ranks 2 --count 8 --fill random:1 --save-record "$rec" >"$dir/run.txt" ||
    { cat "$dir/run.txt"; exit 1; }
  cat "$dir/run.txt"
  grep -q '^clock alignment: ±' "$dir/run.txt" || { echo "no clock alignment line"; exit 1; }
  grep -q '"backend":"mpi"' "$rec" || { echo "record does not say backend mpi"; exit 1; }
  xvfb-run -a "$viz" --replay "$rec" --screenshot "$png" --step 1 --size 800x600 || { echo "viz exited $?"; exit 1; }
  [ -s "$png" ] || { echo "no PNG written"; exit 1; }
  [ "$(head -c 4 "$png" | tail -c 3)" = PNG ] || { echo "$png is not a PNG"; exit 1; }
  echo "PASS: replayed $rec into $png"
  ;;
repeat_steps)
  # run --backend mpi --repeat-steps 4: every step's time is the median of 4
  # warm repetitions (as on threads), the outputs still match the reference.
  out=$($mpirun -n 3 "$microddp" run --backend mpi -c all_reduce -a ring -n 3 --count 7 --fill random:4 --json \
    --repeat-steps 4) || { echo "run exited $?"; echo "$out"; exit 1; }
  echo "$out"
  echo "$out" | grep -q '"ok": true' || { echo "not ok"; exit 1; }
  reps=$(echo "$out" | grep -o '"repetitions": 4, ' | wc -l)
  [ "$reps" = 4 ] || { echo "expected 4 steps with 4 repetitions, got $reps"; exit 1; }
  txt=$($mpirun -n 2 "$microddp" run --backend mpi -c all_reduce -a ring -n 2 --count 4 --steps --repeat-steps 2) ||
    { echo "run --steps exited $?"; exit 1; }
  echo "$txt" | grep -q '2 reps, barrier included; first run ' || { echo "$txt"; echo "no warm step times"; exit 1; }
  if echo "$txt" | grep -q 'warm repetitions are measured on the threads'; then echo "$txt"; echo "still says threads only"; exit 1; fi
  echo "PASS: 4 steps x 4 warm repetitions on mpi, outputs ok"
  ;;
nccl_nogpu)
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "SKIP: a GPU is present"; exit 77
  fi
  msg=$("$microddp" bench --reference nccl -b 4K -e 4K 2>&1)
  rc=$?
  echo "$msg"
  [ "$rc" = 2 ] || { echo "exit $rc, expected 2"; exit 1; }
  echo "$msg" | grep -Eq 'error: --reference nccl: (no CUDA device was found: |this build has no CUDA backend)' ||
    { echo "message does not name the missing device or backend"; exit 1; }
  echo "PASS"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
