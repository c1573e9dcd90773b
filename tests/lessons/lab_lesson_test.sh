#!/bin/bash
# Lesson 09's lab beats run for real: `microddp lesson` starts the cluster
# lab (microddp cluster) for each of them, and their measured_ratio checks
# pass (intra vs inter node, the ring on 2 vs 4 nodes, flat ring vs
# hierarchical on 2 x 4). No lab beat may be skipped here: the probe below
# has shown that this machine can make the lab.
# usage: lab_lesson_test.sh MICRODDP LESSON
# Exit 77 (skipped) where this machine cannot make the namespaces, veths,
# bridges or tbf qdiscs the lab needs, or has no mpirun (the probe of
# tests/cluster/cluster_test.sh).
set -euo pipefail
microddp=$1 lesson=$2
fail() { echo "FAIL: $*"; exit 1; }

command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
for t in ip tc unshare nsenter; do command -v $t >/dev/null || { echo "SKIP: no $t (iproute2/util-linux)"; exit 77; }; done
userns=()
[[ $(id -u) == 0 ]] || userns=(--map-root-user)
if ! probe=$(unshare ${userns[@]+"${userns[@]}"} --net --pid --fork --mount --uts sh -c \
  'ip link add mddpT0 type veth peer name mddpT1 && ip link add mddpTb type bridge &&
   tc qdisc add dev mddpT0 root tbf rate 1mbit burst 64k latency 50ms' 2>&1); then
  echo "SKIP: cannot create namespaces, veths, a bridge or a tbf qdisc here: $probe"
  exit 77
fi

out=$(mktemp "${TMPDIR:-/tmp}/mddp-lab-lesson.XXXXXX")
trap 'rm -f "$out"' EXIT
rc=0
env -u MICRODDP_LESSON_NO_LAB "$microddp" lesson "$lesson" --non-interactive >"$out" 2>&1 || rc=$?
cat "$out"
[[ $rc == 0 ]] || fail "microddp lesson exited $rc"
! grep -q '^lab beat skipped' "$out" || fail "a lab beat was skipped although the lab can run here"
[[ $(grep -c '^  ✓ measured ' "$out") == 3 ]] || fail "expected 3 passing measured_ratio checks"
grep -Eq '^[0-9]+ checks passed, 0 failed$' "$out" || fail "summary line"
echo "PASS"
