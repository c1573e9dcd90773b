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

# shellcheck source=../cluster/lab_skip.sh
. "$(dirname "$0")/../cluster/lab_skip.sh"

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
