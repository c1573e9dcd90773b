#!/usr/bin/env bash
# A lesson's lab beat passes bench's "# warning: the CPUs were N% busy ..."
# line on with the beat's times (app/cli/lesson_lab.cpp). No lab runs:
# MICRODDP_LESSON_LAB_OUTPUT gives the runner a lab's output to read.
# Usage: lesson_lab_output_test.sh MICRODDP
. "$(dirname "$0")/cli_lib.sh" "$1"
T=$(mktemp -d /tmp/microddp-lesson-lab.XXXXXX)
cat > "$T/l.yaml" <<'YAML'
title: t
summary: s
setup: {ranks: 2, count: 8}
beats:
  - kind: lab
    lab: {nodes: 2, ranks_per_node: 1, nic: 100mbit, algorithms: [ring], bytes: 4096}
    text: two nodes
YAML
cat > "$T/busy.txt" <<'OUT'
cluster: NIC check node0 -> node1: shaped 100.0 Mbit/s, measured 93.3 Mbit/s (93 %)
# warning: the CPUs were 87% busy with other work before this run; the times below are disturbed
{"algorithm": "ring", "bytes": 4096, "time_us": 1500.0, "p10_us": 1400.0, "p90_us": 1600.0}
OUT
grep -v '^# warning' "$T/busy.txt" > "$T/idle.txt"
export MICRODDP_LESSON_NO_LAB=0
MICRODDP_LESSON_LAB_OUTPUT="$T/busy.txt" expect 0 "cluster: NIC check node0 -> node1: shaped 100.0 Mbit/s, measured 93.3 Mbit/s (93 %)
# warning: the CPUs were 87% busy with other work before this run; the times below are disturbed" -- lesson "$T/l.yaml" --non-interactive
MICRODDP_LESSON_LAB_OUTPUT="$T/busy.txt" expect 0 "  ring           0.002 s median (p10 0.001, p90 0.002)" -- lesson "$T/l.yaml" --non-interactive
out=$(MICRODDP_LESSON_LAB_OUTPUT="$T/idle.txt" "$BIN" lesson "$T/l.yaml" --non-interactive 2>&1)
if grep -q "warning" <<<"$out"; then echo "FAIL: a warning without bench's line: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -rf "$T"
cli_summary
