#!/usr/bin/env bash
# Records one cluster-lab run as a file the window and the lesson checks read
# (core/model/lab_record.h): runs, as root,
#   microddp cluster --nodes N --ranks-per-node G --nic RATE -- bench --backend mpi
#     --collective all_reduce --algorithm ALGS -b BYTES -e BYTES -n ITERS -w 1 --json
# (the command a lesson's lab beat runs, app/cli/lesson_lab.cpp) and writes
# OUT.json with the machine (lscpu), the date, the command, the NIC check and
# the lab's own lines. Needs root (network namespaces, tc), mpirun and jq.
# Usage: scripts/record-lab.sh MICRODDP OUT.json NODES RANKS_PER_NODE NIC ALGS BYTES ITERS
# (BYTES: the size S, a multiple of 4 bytes; ALGS: names, each once; exit 2 for
# a bad argument, a NIC rate or algorithm the lab would refuse, before the lab runs)
set -euo pipefail
if [ $# -ne 8 ]; then
  echo "usage: $0 MICRODDP OUT.json NODES RANKS_PER_NODE NIC ALGS BYTES ITERS" >&2
  exit 2
fi
bin=$1 out=$2 nodes=$3 rpn=$4 nic=$5 algs=$6 bytes=$7 iters=$8
# Bad arguments are refused before the lab runs (exit 2), naming the value:
# a run of minutes must not end in an error that was known at the start.
bad() { echo "record-lab: $*" >&2; exit 2; }
# At most 9 digits: shell arithmetic and jq read them exactly.
whole() {
  [[ $2 =~ ^[1-9][0-9]*$ ]] || bad "$1 '$2' is not a whole number of 1 or more"
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || bad "$1 '$2' is too large (at most 999999999)"
}
whole NODES "$nodes"
whole RANKS_PER_NODE "$rpn"
whole ITERS "$iters"
whole BYTES "$bytes"
# float32 elements: bench rounds another size down to whole elements and would
# record rows of a size the command line does not say.
(( bytes % 4 == 0 )) || bad "BYTES '$bytes' is not a whole number of float32 elements (a multiple of 4 bytes)"
[ -n "$algs" ] || bad "ALGS is empty (give e.g. ring or naive,tree,ring)"
[[ $algs =~ (^,|,,|,$) ]] && bad "ALGS '$algs' has an empty name between its commas"
# One row per algorithm and size: a name twice would write a second row of
# it, a file that does not load.
declare -A seen=()
IFS=, read -ra alg_list <<<"$algs"
for a in "${alg_list[@]}"; do
  [ -z "${seen[$a]:-}" ] || bad "ALGS '$algs' names $a twice (the record would hold a second row of $a at each size)"
  # auto is a choice, not an algorithm: bench would write rows of "auto", which no record may hold
  [ "$a" != auto ] || bad "ALGS '$algs' names auto (a choice among algorithms, not one: name the algorithms to record)"
  seen[$a]=1
done
[ -x "$bin" ] && [ ! -d "$bin" ] || bad "MICRODDP '$bin' is not an executable file"
# The NIC rate, the placement and each algorithm, as the lab would read them:
# `cluster -- predict` runs here (no namespaces, no root) and refuses what
# the lab would refuse.
for a in "${alg_list[@]}"; do
  why=$("$bin" cluster --nodes "$nodes" --ranks-per-node "$rpn" --nic "$nic" -- predict --collective all_reduce \
        --algorithm "$a" --bytes "$bytes" 2>&1 >/dev/null) ||
    bad "the lab would refuse NODES $nodes RANKS_PER_NODE $rpn NIC '$nic' ALGS '$algs': $(grep -m1 '^error:' <<<"$why" | sed 's/^error: //')"
done
dir=$(dirname -- "$out")
[ -d "$dir" ] || bad "OUT '$out': the directory '$dir' does not exist"
[ ! -d "$out" ] || bad "OUT '$out' is a directory"
# A file can be made there (as root, test -w says yes even on /proc).
probe="$dir/.record-lab.$$"
{ : >"$probe"; } 2>/dev/null || bad "OUT '$out': cannot write in the directory '$dir'"
rm -f -- "$probe"
command -v jq >/dev/null || bad "jq is not installed (apt-get install jq)"
args=(cluster --nodes "$nodes" --ranks-per-node "$rpn" --nic "$nic" -- bench --backend mpi --collective all_reduce
      --algorithm "$algs" -b "$bytes" -e "$bytes" -n "$iters" -w 1 --json)
text=$("$bin" "${args[@]}" 2>&1) || { echo "$text" >&2; echo "record-lab: microddp cluster failed" >&2; exit 1; }
model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cpus=$(nproc)
busy=""
if grep -q "^# warning: the CPUs were" <<<"$text"; then busy=", shared with other work (bench warned: $(grep -m1 '^# warning' <<<"$text" | sed 's/^# warning: //'))"; fi
nic_check=$(grep -m1 "^cluster: NIC check" <<<"$text" | sed 's/^cluster: NIC check //; s/ (\([0-9]* %\);.*/ (\1)/')
# Without the hint naming this machine's profile path ("(no lab profile at
# /root/...)"), in the log and the prediction alike: the file is shipped to
# other machines.
text=$(sed 's/ (no lab profile at [^)]*)//' <<<"$text")
predicted=$(grep -m1 "^# prediction:" <<<"$text" | sed 's/^# prediction: //')
rows=$(grep '^{' <<<"$text" | jq -s '.')
logs=$(grep -v '^{' <<<"$text" | jq -R . | jq -s '.')
jq -n --arg date "$(date -u +%F)" --arg machine "$model, $cpus vCPUs (lscpu)$busy" \
  --arg command "microddp ${args[*]}" --argjson nodes "$nodes" --argjson rpn "$rpn" --arg nic "$nic" \
  --arg nic_check "$nic_check" --arg predicted "$predicted" --argjson log "$logs" --argjson rows "$rows" \
  '{recorded: "a cluster lab run of microddp bench, saved for machines without network namespaces (scripts/record-lab.sh)",
    date: $date, machine: $machine, command: $command, collective: "all_reduce", nodes: $nodes,
    ranks_per_node: $rpn, nic: $nic, nic_check: $nic_check, predicted: $predicted, log: $log, rows: $rows}' >"$out"
echo "wrote $out ($(jq '.rows | length' "$out") rows)"
