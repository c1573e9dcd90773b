#!/bin/bash
# The cluster lab runs what it says (app/cli/lab_job.h): each subcommand is
# one MPI job across the lab's nodes, or runs here, or is refused.
# usage: lab_job_test.sh MODE MICRODDP
#   refused    (no namespaces: decided before any is made) a --backend other
#              than mpi, a --ranks / --nodes / --ranks-per-node other than
#              the lab's, ddp / hang-lab / lesson / fit / cluster, a bad
#              option and predict --preset: exit 2, one "error:" line
#              naming the value and the reason, nothing on stdout
#   predict    (no namespaces) predict for the lab's topology: 2 nodes x 2
#              ranks, the shaped 12.5 MB/s NIC; hierarchical's 4 steps and
#              its exact prediction on those links
#   run        2 x 2 at 100mbit: run -a hierarchical --json is one job of 4
#              ranks, backend mpi, nodes 2, 4 steps (the flat ring on 4
#              ranks has 6), ranks on hosts node0 node0 node1 node1
#   doctor     the README's 3 nodes x 1 rank, 2 NICs at 1gbit, doctor
#              --ranks 3: one report (not one per node), mpi backend, world
#              size 3, ranks on node0 node1 node2, every check passed
#   bench      2 x 1 at 100mbit, no profile: the header names the lab's
#              shaped links; 2 ranks, mpi; the 64 KiB ring's prediction is
#              2 x (50 us + 32768 B / 12.5 MB/s) = 5342.88 us
#   calibrate  2 x 2 at 100mbit, calibrate --quick: the per-class MPI
#              measurement; the profile says "backend": "mpi-lab" and holds
#              the lab's topology; then predict in the lab (no namespaces)
#              names that profile and prices on it
# Each run uses an empty HOME: no machine or lab profile but its own.
# The lab modes exit 77 where the lab cannot be made (lab_skip.sh).
set -euo pipefail
mode=$1 microddp=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/mddp-lab-job-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home
unset XDG_CONFIG_HOME
mkdir -p "$HOME"

fail() { echo "FAIL: $*"; exit 1; }
has() {  # has FILE PATTERN WHAT: grep -E, else fail naming WHAT
  grep -Eq -- "$2" "$1" || fail "$3 (no match for '$2' in $1)"
}
lab() {  # lab LAB-OPTIONS -- SUBCOMMAND ...: run microddp cluster; out, err, rc
  rc=0
  "$microddp" cluster "$@" >"$work/out" 2>"$work/err" || rc=$?
  echo "== microddp cluster $* -> exit $rc"
  cat "$work/err" "$work/out"
}

case $mode in
refused)
  expect2() {  # expect2 PATTERN LAB-AND-SUBCOMMAND...
    local pat=$1
    shift
    lab "$@"
    [[ $rc == 2 ]] || fail "exit $rc, expected 2"
    [[ $(wc -l <"$work/err") == 1 ]] || fail "expected one error line (printed once, before any lab)"
    has "$work/err" "^error: cluster: .*$pat" "the error does not name it"
    [[ ! -s $work/out ]] || fail "printed on stdout"
  }
  l22=(--nodes 2 --ranks-per-node 2 --nic 100mbit --)
  expect2 "run --backend threads would run each node's own copy \(a rank per CPU thread of one process\), not one job across the lab's nodes" \
    "${l22[@]}" run --backend threads
  expect2 "bench --backend cuda would run each node's own copy \(the lab's nodes have no GPU\)" "${l22[@]}" bench --backend cuda
  expect2 "doctor --backend threads would run" "${l22[@]}" doctor --backend threads
  expect2 "calibrate --backend threads would run" "${l22[@]}" calibrate --backend threads --quick
  expect2 "run --ranks 3 disagrees with the lab's 2 node\(s\) x 2 rank\(s\) per node = 4 ranks \(give --ranks 4" \
    "${l22[@]}" run --ranks 3
  expect2 "bench --ranks 8 disagrees with the lab's 2 node\(s\) x 2 rank\(s\) per node = 4 ranks" "${l22[@]}" bench --ranks 8
  expect2 "doctor --ranks 1,2,4 disagrees with the lab's 2 node\(s\) x 2 rank\(s\) per node = 4 ranks" \
    "${l22[@]}" doctor --ranks 1,2,4
  expect2 "run --nodes 1 disagrees with the lab's 2 nodes" "${l22[@]}" run --nodes 1 -a hierarchical
  expect2 "calibrate --ranks-per-node 1 disagrees with the lab's 2 ranks per node" "${l22[@]}" calibrate --ranks-per-node 1
  expect2 "subcommand 'ddp' does not run as an MPI job across the lab's nodes: it trains on the threads backend" \
    "${l22[@]}" ddp
  expect2 "subcommand 'hang-lab' does not run as an MPI job across the lab's nodes: it injects its faults" \
    "${l22[@]}" hang-lab
  expect2 "subcommand 'lesson' does not run as an MPI job across the lab's nodes: a lesson starts its own runs" \
    "${l22[@]}" lesson 01-seed-ring
  expect2 "subcommand 'fit' does not run as an MPI job across the lab's nodes: it fits published tables" "${l22[@]}" fit
  expect2 "subcommand 'cluster' does not run as an MPI job across the lab's nodes: a lab inside a lab" \
    "${l22[@]}" cluster --nic 1gbit -- run
  expect2 "run: The following argument was not expected: --bogus" "${l22[@]}" run --bogus
  expect2 "run: Could not convert: --ranks = three" "${l22[@]}" run --ranks three
  expect2 "predict --preset names other links" "${l22[@]}" predict --preset nvlink
  expect2 "predict --nccl-system names other links" "${l22[@]}" predict --nccl-system dgx-h100 --bytes 1M
  echo "PASS: every refusal exits 2 before any lab, naming the value and the reason"
  ;;
predict)
  lab --nodes 2 --ranks-per-node 2 --nic 100mbit -- predict --bytes 4M -a hierarchical
  [[ $rc == 0 ]] || fail "exit $rc"
  has "$work/err" "^cluster: predict runs here for the lab's topology \(2 node\(s\) x 2 rank\(s\) per node = 4 ranks, 1 NIC\(s\) per node at 100.0 Mbit/s; no namespaces, no mpirun\): the lab's shaped links \(no lab profile at $HOME/.config/microddp/lab-profile.json" \
    "the source is not named"
  has "$work/err" "^cluster: microddp predict --ranks 4 --nodes 2 --nics-per-node 1 --intra 1e-06,1e\+10 --inter 5e-05,1.25e\+07 --bytes 4M -a hierarchical$" \
    "the command run is not shown"
  has "$work/out" "^all_reduce, 4 ranks, 4 MiB \(4194304 B\); 2 node\(s\) x 2 rank\(s\), 1 NIC\(s\) per node;" "not the lab's topology"
  # Two intra steps (1 us, 10 GB/s) and two inter steps (50 us, 12.5 MB/s).
  has "$work/out" "^hierarchical +4 +0.2020 +335.9638 +336.1658 " "hierarchical's steps or prediction"
  echo "PASS: predict priced the lab's 2 x 2 topology on its shaped NIC, without a lab"
  ;;
run | doctor | bench | calibrate)
  source "$(dirname "$0")/lab_skip.sh"
  ;;&
run)
  lab --nodes 2 --ranks-per-node 2 --nic 100mbit -- run -a hierarchical --count 8 --fill random:1 --json
  [[ $rc == 0 ]] || fail "exit $rc"
  has "$work/err" "^cluster: one MPI job across the lab's nodes; added to the command: --backend mpi --ranks 4 --nodes 2$" \
    "what the lab added"
  has "$work/err" "^cluster: mpirun -n 4 .* run --backend mpi --ranks 4 --nodes 2 -a hierarchical" "not one job of 4"
  has "$work/out" '"world_size": 4, ' "world size"
  has "$work/out" '"backend": "mpi", ' "backend"
  has "$work/out" '"steps": 4, ' "hierarchical on 2 nodes x 2 ranks has 4 steps"
  has "$work/out" '"ok": true' "ok"
  has "$work/out" '"nodes": 2, "cluster": \{"nodes": 2, "ranks_per_node": 2, "nic_bps": 100000000, "nics_per_node": 1, "intra": "shm", "inter": "tcp"\}, "hosts": \["node0", "node0", "node1", "node1"\]' \
    "nodes, cluster or hosts"
  [[ $(grep -c '"world_size"' "$work/out") == 1 ]] || fail "more than one report"
  echo "PASS: one job of 4 ranks on node0 node0 node1 node1, mpi, hierarchical over 2 nodes in 4 steps"
  ;;
doctor)
  lab --nodes 3 --nics-per-node 2 --nic 1gbit -- doctor --ranks 3 --count 16
  [[ $rc == 0 ]] || fail "exit $rc"
  has "$work/err" "^cluster: mpirun -n 3 .* doctor --backend mpi --ranks 3 --count 16$" "not one job of 3"
  [[ $(grep -c '^backends:' "$work/out") == 1 ]] || fail "not one report"
  has "$work/out" "^all_reduce\(sum\) of ones, float32, count 16, mpi backend: one job of world size 3, ranks on hosts node0 node1 node2 \(rank 0 first\)" \
    "backend, world size or hosts"
  has "$work/out" "^  ranks   3  ring +ok$" "ring on 3 ranks"
  grep -E '^  ranks ' "$work/out" | grep -Ev '^  ranks   3 ' && fail "a world size other than 3 was checked"
  has "$work/out" "^([0-9]+) of \1 checks passed$" "not every check passed"
  echo "PASS: doctor ran once, as one mpi job of 3 ranks on node0 node1 node2"
  ;;
bench)
  lab --nodes 2 --nic 100mbit -- bench -b 64K -e 64K -n 2 -w 1
  [[ $rc == 0 ]] || fail "exit $rc"
  has "$work/err" "^cluster: mpirun -n 2 .* bench --backend mpi --ranks 2 -b 64K" "not one job of 2"
  has "$work/out" "^# prediction: the lab's shaped links \(no lab profile at $HOME/.config/microddp/lab-profile.json; .*inter-node 12.500 MB/s per NIC \(the tbf rate\), α 50 us assumed; intra-node 1.000 us, 10000.000 MB/s" \
    "the header does not name the lab's links"
  has "$work/out" "^# microddp bench: all_reduce on 2 ranks, backend mpi," "world size or backend"
  has "$work/out" "^# topology: 2 node\(s\) x 1 rank\(s\), 1 NIC\(s\) per node" "nodes"
  [[ $(grep -c '^# microddp bench' "$work/out") == 1 ]] || fail "not one table"
  has "$work/out" "^ +ring +65536 +16384 +float32 +sum +-1 .* 5342.88 " "the prediction on the shaped link"
  echo "PASS: bench ran once on 2 ranks (mpi) and predicted from the lab's shaped NIC"
  ;;
calibrate)
  lab --nodes 2 --ranks-per-node 2 --nic 100mbit -- calibrate --quick
  [[ $rc == 0 ]] || fail "exit $rc"
  has "$work/err" "^cluster: mpirun -n 4 .* calibrate --backend mpi --quick$" "not one job of 4"
  has "$work/out" "^calibrating backend mpi per link class \(quick: messages up to 1 MiB\): 2 node\(s\) x 2 rank\(s\), 1 NIC\(s\) per node shaped to 100.0 Mbit/s" \
    "the header"
  prof=$HOME/.config/microddp/lab-profile.json
  [[ -f $prof ]] || fail "no $prof"
  has "$prof" '"backend": "mpi-lab"' "the profile's backend"
  has "$prof" '"shaped_Bps": 12500000' "the profile's shaped rate"
  has "$prof" '"ranks_per_node": 2' "the profile's ranks per node"
  has "$prof" '"nodes": 2' "the profile's nodes"
  lab --nodes 2 --ranks-per-node 2 --nic 100mbit -- predict --bytes 4M -a ring
  [[ $rc == 0 ]] || fail "predict exit $rc"
  has "$work/err" "^cluster: predict runs here .*: the lab's profile $prof \(calibrated in the lab: 2 node\(s\) x 2 rank\(s\), 100.0 Mbit/s per NIC" \
    "predict did not name the lab's profile"
  has "$work/out" "2 node\(s\) x 2 rank\(s\), 1 NIC\(s\) per node; intra lab-intra" "predict did not use its topology"
  has "$work/out" "^ring +6 " "ring on 4 ranks"
  echo "PASS: calibrate --quick measured the lab per link class (mpi-lab, 2 x 2 at 100 Mbit/s); predict in the lab uses it"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
