#!/usr/bin/env bash
# microddp fit / predict on published nccl-tests tables: the refusals and
# lines a hostile review asked for (exact text, exit codes).
set -u
BIN="$1"
D="$(dirname "$0")/../data/nccl-tests"
T=$(mktemp -d /tmp/microddp-cli-published.XXXXXX)
XDG_CONFIG_HOME="$T/config"
export XDG_CONFIG_HOME
trap 'rm -rf "$T"' EXIT
fail=0; passed=0
expect() {  # expect <exit code> <substring of stdout+stderr> -- args...
  local code="$1" want="$2"; shift 3
  local out rc
  out=$("$BIN" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc (wanted $code), output:"; echo "$out" | head -20
    echo "      wanted to see: $want"; fail=$((fail + 1))
  else
    passed=$((passed + 1))
  fi
}
absent() {  # absent <substring> -- args...: exit 0 and the text not in the output
  local want="$1"; shift 2
  local out rc
  out=$("$BIN" "$@" 2>&1); rc=$?
  if [ "$rc" -ne 0 ] || [[ "$out" == *"$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc, printed '$want' or failed:"; echo "$out" | head -20; fail=$((fail + 1))
  else
    passed=$((passed + 1))
  fi
}
GOOD="$D/a100-1x8-allreduce.txt"
# 1. no row of 64 MiB or more: the tuner's bandwidth scale is not fitted from latency-bound rows
head -20 "$GOOD" > "$T/512b.txt"   # rows 64 B .. 512 B
head -31 "$GOOD" > "$T/1m.txt"     # rows 64 B .. 1 MiB
head -37 "$GOOD" > "$T/64m.txt"    # rows 64 B .. 64 MiB: fitted from the two largest sizes
expect 2 "error: $T/512b.txt: its largest row is 512 B: no row of 64 MiB (67108864 B) or more: the bus bandwidth cannot be fitted from latency-bound rows; run the tool to -e 1G" -- fit "$T/512b.txt" --out "$T/x.json"
expect 2 "error: $T/1m.txt: its largest row is 1 MiB (1048576 B): no row of 64 MiB (67108864 B) or more" -- fit "$T/1m.txt" --out "$T/x.json"
# the fallback's sizes read as size_text does ("32 MiB (33554432 B)"), in both models' lines
expect 0 "  bus bandwidth x 0.8499 (every candidate's; from the out-of-place rows of 32 MiB (33554432 B), 64 MiB (67108864 B): no row of 512 MiB (536870912 B) or more, the two largest sizes)" -- fit "$T/64m.txt" --out "$T/x.json"
expect 0 "  bandwidth = 182.10 GB/s (β = 5.492e-12 s/B; from the out-of-place rows of 32 MiB (33554432 B), 64 MiB (67108864 B): no row of 512 MiB (536870912 B) or more, the two largest sizes)" -- fit "$T/64m.txt" --model alpha-beta --out "$T/x.json"
# 2. every row flagged #wrong: nothing to compare with
sed 's/sum      -1    \([0-9.]*\)    \([0-9.]*\)    \([0-9.]*\)      0/sum      -1    \1    \2    \3      5/' "$T/512b.txt" > "$T/wrong.txt"
expect 2 "error: $T/wrong.txt: no out-of-place row with a time, a size of at least 1 B and no #wrong elements: nothing to compare with" -- predict --against "$T/wrong.txt" --preset nvlink
# 3. nvls on the nvlink preset is priced on its NVSwitch: that pricing's closed form, whose terms the block prints
expect 0 "closed form: 2α + 2·S·β  (an NVSwitch with a port per rank, reducing at line rate: each rank's S up its port, the sum back down; NVLS: Graham et al. 2016, NCCL all_reduce.h)  with S = 67108864 B" -- predict --preset nvlink -a nvls --ranks 4 --bytes 64M
expect 0 "  α term             2.00 us
  β term           223.70 us" -- predict --preset nvlink -a nvls --ranks 4 --bytes 64M
absent "one endpoint with one port" -- predict --preset nvlink -a nvls --ranks 8 --bytes 1M
# 4. a table of other hardware: a mismatch line naming the table's GPU and nodes and the system's; none on its own system
expect 0 "mismatch: $GOOD is 1 node of NVIDIA A100-SXM4-40GB; dgx-h100-2node is 2 nodes of h100: priced on dgx-h100-2node's hardware with the table's 8 ranks" -- predict --against "$GOOD" --nccl-system dgx-h100-2node
"$BIN" fit "$GOOD" --out "$T/a100.json" >/dev/null
expect 0 "mismatch: $D/h100-2x8-allreduce.txt is 2 nodes of NVIDIA H100 80GB HBM3; dgx-a100 (fitted, profile $T/a100.json) is 1 node of a100: priced on dgx-a100's hardware with the table's 16 ranks" -- predict --profile "$T/a100.json" --against "$D/h100-2x8-allreduce.txt"
absent "mismatch:" -- predict --against "$GOOD" --nccl-system oci-a100-g8
absent "mismatch:" -- predict --against "$D/h100-2x8-ib-allreduce.txt" --nccl-system dgx-h100
# 5. fit's one-line help names the tuner as its default
expect 0 "fit NCCL's tuner (by default; --model alpha-beta: an α-β line) to published nccl-tests tables of one system" -- --help
# 6. the nvls note only where nvls is a candidate
absent "(nvls on nvlink" -- predict --preset nvlink -a auto -c reduce_scatter --ranks 7 --bytes 1M
expect 0 "(nvls on nvlink: an NVSwitch with a port per rank" -- predict --preset nvlink -a auto --ranks 8 --bytes 1M
# 7. a size row twice (a table pasted twice) is refused at its line
{ head -18 "$GOOD"; sed -n 17p "$GOOD"; } > "$T/dup.txt"
expect 2 "error: $T/dup.txt:19: a second row of size 64 B (float sum) after line 17: one row per size (a table pasted twice?)" -- predict --against "$T/dup.txt" --preset nvlink
expect 2 "error: $T/dup.txt:19: a second row of size 64 B" -- fit "$T/dup.txt" --out "$T/x.json"
# 8. a size that is not a whole number of its unit is not printed as one
expect 0 "reduce_scatter halving_doubling, 7 ranks, 1023.996 KiB (1048572 B)" -- predict --preset nvlink -a auto -c reduce_scatter --ranks 7 --bytes 1M
echo "cli.published: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
