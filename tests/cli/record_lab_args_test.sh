#!/usr/bin/env bash
# scripts/record-lab.sh refuses bad arguments before the lab runs: exit 2 and
# a line naming the value (no root, no lab needed: nothing here starts one).
# Usage: record_lab_args_test.sh SOURCE_DIR MICRODDP
set -u
src=$1 bin=$2
script=$src/scripts/record-lab.sh
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
fails=0
expect() {  # expect MESSAGE ARGS...
  local want=$1
  shift
  local got rc
  got=$("$script" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$got" != "$want" ]; then
    echo "FAIL: record-lab.sh $*"
    echo "  want (exit 2): $want"
    echo "  got  (exit $rc): $got"
    fails=$((fails + 1))
  fi
}
out=$tmp/r.json
expect "record-lab: BYTES '5' is not a whole number of float32 elements (a multiple of 4 bytes)" "$bin" "$out" 2 1 100mbit ring 5 3
expect "record-lab: BYTES '4K' is not a whole number of 1 or more" "$bin" "$out" 2 1 100mbit ring 4K 3
expect "record-lab: BYTES '99999999999' is too large (at most 999999999)" "$bin" "$out" 2 1 100mbit ring 99999999999 3
expect "record-lab: ITERS '1000000000' is too large (at most 999999999)" "$bin" "$out" 2 1 100mbit ring 4096 1000000000
expect "record-lab: NODES '2.5' is not a whole number of 1 or more" "$bin" "$out" 2.5 1 100mbit ring 4096 3
expect "record-lab: RANKS_PER_NODE '0' is not a whole number of 1 or more" "$bin" "$out" 2 0 100mbit ring 4096 3
expect "record-lab: ITERS '-3' is not a whole number of 1 or more" "$bin" "$out" 2 1 100mbit ring 4096 -3
expect "record-lab: ALGS is empty (give e.g. ring or naive,tree,ring)" "$bin" "$out" 2 1 100mbit "" 4096 3
expect "record-lab: ALGS 'ring,ring' names ring twice (the record would hold a second row of ring at each size)" "$bin" "$out" 1 2 100mbit ring,ring 4096 5
expect "record-lab: ALGS 'ring,auto' names auto (a choice among algorithms, not one: name the algorithms to record)" "$bin" "$out" 2 4 100mbit ring,auto 4096 5
expect "record-lab: ALGS 'ring,,tree' has an empty name between its commas" "$bin" "$out" 2 1 100mbit ring,,tree 4096 5
expect "record-lab: the lab would refuse NODES 1 RANKS_PER_NODE 2 NIC '100xbit' ALGS 'ring': --nic '100xbit': unknown unit 'xbit'; tc's units: bit kbit mbit gbit tbit kibit mibit gibit tibit bps kbps mbps gbps tbps" "$bin" "$out" 1 2 100xbit ring 4096 5
expect "record-lab: the lab would refuse NODES 1 RANKS_PER_NODE 2 NIC '100mbit' ALGS 'ring,foo': unknown algorithm 'foo' for all_reduce (expected one of: naive, tree, ring, ring_unchunked, recursive_doubling, halving_doubling, hierarchical, double_binary_tree, one_shot, two_shot, nvls)" "$bin" "$out" 1 2 100mbit ring,foo 4096 5
expect "record-lab: the lab would refuse NODES 20 RANKS_PER_NODE 1 NIC '100mbit' ALGS 'ring': --nodes 20: must be in 1..16" "$bin" "$out" 20 1 100mbit ring 4096 5
expect "record-lab: MICRODDP '$tmp/none' is not an executable file" "$tmp/none" "$out" 2 1 100mbit ring 4096 3
expect "record-lab: OUT '$tmp/nodir/r.json': the directory '$tmp/nodir' does not exist" "$bin" "$tmp/nodir/r.json" 2 1 100mbit ring 4096 3
expect "record-lab: OUT '$tmp' is a directory" "$bin" "$tmp" 2 1 100mbit ring 4096 3
expect "record-lab: OUT '/proc/r.json': cannot write in the directory '/proc'" "$bin" /proc/r.json 2 1 100mbit ring 4096 3
# The usage line for a wrong count of arguments.
got=$("$script" a b c 2>&1)
rc=$?
[ "$rc" -eq 2 ] && [[ $got == usage:* ]] || { echo "FAIL: 3 arguments: exit $rc: $got"; fails=$((fails + 1)); }
# Nothing was written, no probe file left behind.
[ -z "$(ls -A "$tmp")" ] || { echo "FAIL: left in $tmp: $(ls -A "$tmp")"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "record-lab arguments: all refused with exit 2"
exit $((fails > 0))
