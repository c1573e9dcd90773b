#!/usr/bin/env bash
# microddp run as a user types it: the seed example's exact output, JSON
# fields, and bad input -> exit 2 with one "error:" line naming the value.
set -u
BIN="$1"
# No calibration profile unless a test writes one: the default profile lives
# under XDG_CONFIG_HOME, so a profile on this machine changes no output here.
XDG_CONFIG_HOME=$(mktemp -d /tmp/microddp-cli-config.XXXXXX)
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
fail=0; passed=0
expect() {  # expect <exit code> <substring of stdout+stderr, lines included> -- args...
  local code="$1" want="$2"; shift 3
  local out rc
  out=$("$BIN" "$@" 2>&1); rc=$?
  # a plain substring test: a want of several lines must appear as one block
  if [ "$rc" -ne "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc (wanted $code), output:"; echo "$out" | head -40
    echo "      wanted to see: $want"; fail=$((fail + 1))
  else
    passed=$((passed + 1))
  fi
}
SEED=(run --collective all_reduce --algorithm ring_unchunked --ranks 3 --data "1,2,3;4,5,6;7,8,9")
# unwritten cells (the output before step 1 writes it) print as ·, not 0
expect 0 "R0  output [·, ·, ·]  send_buff (B) [7, 8, 9]  recv_buff (A) [1, 2, 3]  accum [8, 10, 12]" -- "${SEED[@]}" --steps
expect 0 "R0  output [12, 15, 18]" -- "${SEED[@]}" --steps
expect 0 "R2 [12, 15, 18]" -- "${SEED[@]}" --outputs
expect 0 "R1  output [5, ·, ·]" -- run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --steps
# without --outputs/--steps/--json, run prints no data: the summary, bytes and verdict (3 lines)
out=$("$BIN" "${SEED[@]}" 2>/dev/null)
if grep -qF "[12, 15, 18]" <<<"$out" || [ "$(wc -l <<<"$out")" -ne 3 ] || ! grep -qF "ok: matches the reference" <<<"$out"; then
  echo "FAIL: run without --outputs printed:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# without a profile, one hint line on stderr: the preset standing in and the quick calibration
err=$("$BIN" "${SEED[@]}" 2>&1 >/dev/null)
if [ "$err" != "hint: no calibration profile ($XDG_CONFIG_HOME/microddp/profile.json): no predicted times (the window and --algorithm auto use preset nvlink meanwhile); \`microddp calibrate --quick\` measures this machine in a few seconds" ]; then
  echo "FAIL: run without a profile, stderr: $err"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 "hint: no calibration profile ($XDG_CONFIG_HOME/microddp/profile.json): --algorithm auto chose on preset nvlink, not on this machine" -- run -c all_reduce -a auto -n 3 --count 3
err=$("$BIN" "${SEED[@]}" --preset nvlink 2>&1 >/dev/null)
if [ -n "$err" ]; then echo "FAIL: run --preset printed on stderr: $err"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# long vectors: elided in the middle, --full prints all, --json never elides
LONG=(run -c all_reduce -n 4 --count 1024 --fill iota --dtype int64)
expect 0 "R3 [148, 152, 156, …, 232, 236, 240]" -- "${LONG[@]}" --outputs
expect 0 "R0 [148, 152, 156, …, 232, 236, 240]" -- run -c all_reduce -n 4 --count 1024 --fill iota --outputs
expect 0 "R0 [148, 152, 156, 160, 164, 168, 172, 176, 180, 184, 188, 192, 196, 200, 204, 208," -- "${LONG[@]}" --outputs --full
expect 0 '"outputs": [[148, 152, 156, 160, 164, 168, 172, 176, 180, 184, 188, 192, 196, 200, 204,' -- "${LONG[@]}" --json
expect 0 "R0 [1, 2, 3, …, 24, 25, 26]" -- run -c all_reduce -n 3 --count 26 --fill iota --steps
# counts of one are singular: "1 element", "1 rank", "1 step" (never "1 elements")
expect 0 "R0 → R1  send input chunk 0 [0, 1)  1 element, 4 B" -- run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --steps
expect 0 "all_reduce · ring · 1 rank · count 4 × float32 · op sum · 1 step · " -- run -c all_reduce -a ring -n 1 --count 4
expect 0 "1 step · " -- run -c all_reduce -a ring -n 1 --count 4 --steps
expect 0 "R0 → R1  send input chunk 0 [0, 2)  2 elements, 8 B" -- run -c all_reduce -a ring -n 2 --count 4 --fill iota --steps
# nvls: the switch is an endpoint of its own, printed SW; it holds every contribution and the sum
NVLS=(run -c all_reduce -a nvls -n 3 --data "1,2,3;4,5,6;7,8,9")
expect 0 "2 steps · " -- "${NVLS[@]}" --steps
expect 0 "  R0 → SW  send input holding T0 [0, 3)  3 elements, 12 B" -- "${NVLS[@]}" --steps
expect 0 "  SW ← R2  recv into scratch holding T2 [6, 9)  3 elements, 12 B" -- "${NVLS[@]}" --steps
expect 0 "  SW       reduce scratch into accum [0, 3) holding T2" -- "${NVLS[@]}" --steps
expect 0 "    SW  accum [12, 15, 18]  scratch [1, 2, 3, 4, 5, 6, 7, 8, 9]" -- "${NVLS[@]}" --steps
expect 0 "  SW → R1  send accum [0, 3)  3 elements, 12 B" -- "${NVLS[@]}" --steps
expect 0 "    R1  output [12, 15, 18]" -- "${NVLS[@]}" --steps
expect 0 "bytes sent/received: R0 12/12  R1 12/12  R2 12/12  SW 36/36" -- "${NVLS[@]}"
expect 0 '"bytes_sent": [12, 12, 12, 36], "bytes_received": [12, 12, 12, 36]' -- "${NVLS[@]}" --json
expect 0 '"switches": 1' -- "${NVLS[@]}" --json
expect 2 "error: nodes = 2: nvls reduces inside one node's switch; use hierarchical or ring across nodes" -- run -c all_reduce -a nvls -n 4 --nodes 2 --count 4
out=$("$BIN" run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --steps 2>&1)
if grep -qE '(^|[^0-9])1 (elements|ranks|steps|reps)' <<<"$out"; then
  echo "FAIL: a plural after 1:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# iota wraps at 1000 (exact in float16, exact float32 sums), as --help and the README say
expect 0 "998, 999, 1000, 1, 2]" -- run -c all_reduce -n 1 --count 1002 --fill iota --outputs --full
expect 0 "(r*count + i) mod 1000 + 1 (wraps at 1000" -- run --help
for args in "--outputs" "--outputs --full" "--json"; do
  bytes=$("$BIN" run -c all_reduce -n 4 --count 262144 --fill random:1 $args | wc -c)
  case "$args" in
    --outputs) want_max=2000 ;;
    *) want_max=100000000 ;;
  esac
  if [ "$bytes" -gt "$want_max" ] || { [ "$args" != "--outputs" ] && [ "$bytes" -lt 1000000 ]; }; then
    echo "FAIL: run --count 262144 $args printed $bytes bytes"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
expect 0 '"outputs": [[12, 15, 18], [12, 15, 18], [12, 15, 18]], "bytes_sent": [24, 24, 24]' -- "${SEED[@]}" --json
expect 0 '"steps": 2' -- "${SEED[@]}" --json
expect 0 '"ok": true' -- run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --json
# --protocol (core/ir/protocol.h): run --json always names it; ll / ll128 give the same outputs; --steps shows
# each send's wire bytes and flags; bad values and the mpi backend are refused naming the value
expect 0 '"mode": "lockstep", "protocol": "simple", "steps": 2' -- "${SEED[@]}" --json
expect 0 '"protocol": "ll", "steps": 2, "outputs": [[12, 15, 18], [12, 15, 18], [12, 15, 18]]' -- "${SEED[@]}" --json --protocol ll
expect 0 '"protocol": "ll128", "steps": 2, "outputs": [[12, 15, 18], [12, 15, 18], [12, 15, 18]]' -- "${SEED[@]}" --json --protocol ll128
expect 0 "R0 → R1  send input chunk 0 [0, 2)  2 elements, 8 B · 16 B on the wire in 2 flagged words" -- run -c all_reduce -a ring -n 2 --count 4 --fill iota --steps --protocol ll
expect 0 "R0 → R1  send input chunk 0 [0, 2)  2 elements, 8 B · 128 B on the wire in 1 flagged line" -- run -c all_reduce -a ring -n 2 --count 4 --fill iota --steps --protocol ll128
expect 0 "protocol ll: every message stored in the receiver's buffer as 8-byte words of 4 B data + 4 B flag" -- "${SEED[@]}" --protocol ll
expect 0 '"protocol_auto": {"chosen": "simple", "model": "nvlink, protocol lines derived (not measured)", "candidates": [{"protocol": "simple"' -- "${SEED[@]}" --json --protocol auto
expect 0 "protocol auto: chose simple (lowest predicted time on nvlink, protocol lines derived (not measured)); candidates: simple " -- "${SEED[@]}" --protocol auto
expect 2 "error: --protocol 'LL' is unknown (expected one of: simple, ll, ll128, auto)" -- "${SEED[@]}" --protocol LL
expect 2 "error: --protocol 'fast' is unknown (expected one of: simple, ll, ll128, auto)" -- bench -b 4K -e 4K --protocol ll,fast
expect 2 "error: --protocol ll: the mpi backend runs simple only: Open MPI moves the bytes with its own protocols" -- "${SEED[@]}" --backend mpi --protocol ll
expect 2 "error: --protocol auto needs a model to choose with" -- bench -b 4K -e 4K --protocol auto
out=$("$BIN" bench -b 64 -e 4K -f 64 -n 3 -w 1 --protocol ll,ll128,simple --preset nvlink 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qE '^ +ring/ll +64 ' <<<"$out" || ! grep -qE '^ +ring/ll128 +4096 ' <<<"$out" ||
   ! grep -qE '^ +ring/simple +4096 ' <<<"$out" || ! grep -qE '^# Protocol crossovers  : ring on 2 ranks, measured: .*; predicted: simple at every size$' <<<"$out"; then
  echo "FAIL: bench --protocol ll,ll128,simple:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 '"algorithm": "ring", "protocol": "ll128", "backend": "threads"' -- bench -b 4K -e 4K -n 2 -w 1 --protocol ll128 --json
expect 0 "protocol ll    : α    1.000 µs" -- predict -n 4 --bytes 4K --preset nvlink --protocol ll
expect 0 "protocol auto picks simple on nvlink for ring at 4 KiB (4096 B)" -- predict -n 4 --bytes 4K --preset nvlink --protocol auto
expect 0 '"steps": 4' -- run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --json
expect 0 '"outputs": [null, [1, 2, 3, 4, 5]' -- run -c gather -a tree -n 3 --counts 2,0,3 --data "1,2;;3,4,5" --root 1 --json
expect 0 '"outputs": [["nan", 2]' -- run -c all_reduce -a tree -n 2 --op max --data "nan,1;0,2" --json
expect 0 '"ok": true' -- run -c reduce_scatter -a halving_doubling -n 6 --count 5 --dtype bfloat16 --op avg --fill random:3 --json
# Step times: the warm median with its spread, the repetitions, the first
# run apart and the prediction (null without a model), one object per step.
expect 0 '"repetitions": 6, "first_run_us": ' -- "${SEED[@]}" --json --repeat-steps 6
expect 0 '"predicted_us": null, "includes_barrier": true}' -- "${SEED[@]}" --json --repeat-steps 2
expect 0 '"repetitions": 0, "first_run_us": ' -- "${SEED[@]}" --json --repeat-steps 0
expect 0 '"predicted_us": 1.000, "includes_barrier": true}' -- "${SEED[@]}" --json --repeat-steps 3 --alpha 1e-6 --bandwidth 1e12
expect 0 ' reps, barrier included; first run ' -- "${SEED[@]}" --steps --repeat-steps 4
expect 0 '· predicted 1.0 µs' -- "${SEED[@]}" --steps --repeat-steps 4 --alpha 1e-6 --bandwidth 1e12
expect 0 ' · predicted 2.0 µs (error ' -- "${SEED[@]}" --steps --repeat-steps 4 --alpha 1e-6 --bandwidth 1e12
# predict's parameter line gives the barrier, peer wait and bus of the call's world size, not of 2 or 3 ranks
BW=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6, 4e-6], "peer_wait_s_by_ranks": [0, 3e-6, 5e-6], "mem_bw_Bps_by_threads": [1e10, 1.5e10]}' > "$BW"
expect 0 'barrier b(4) = 4 us, peer wait w(4) = 5 us, memory bus B(2) = 15 GB/s' -- predict -n 4 --bytes 1K -a ring --profile "$BW"
expect 0 'barrier b(2) = 0.5 us, peer wait w(2) = 0 us, memory bus B(2) = 15 GB/s' -- predict -n 2 --bytes 1K -a ring --profile "$BW"
rm -f "$BW"
# the errors beside the warm medians: their sign said once; against a preset, called a what-if
expect 0 '(error = (predicted - measured) / measured median: - where the model expected less time, + more; a step'"'"'s prediction is its α-β terms plus the barrier b(n) and any peer wait w(n), which `microddp predict` lists apart)' -- "${SEED[@]}" --steps --repeat-steps 4 --alpha 1e-6 --bandwidth 1e12
expect 0 '(predicted with preset nvlink: a what-if for that hardware, so each error compares it with this machine, not the model with its own measurement)' -- "${SEED[@]}" --steps --repeat-steps 4 --preset nvlink
expect 0 "step times: one run each (free mode" -- "${SEED[@]}" --steps --mode free
# without --steps the headline is also the warm steps' medians, the first run apart
expect 0 " · 2 steps · " -- "${SEED[@]}"
expect 0 "µs measured (sum of step medians over " -- "${SEED[@]}"
expect 0 "µs measured (free) · free on threads" -- "${SEED[@]}" --mode free
expect 2 "--repeat-steps: Value -1 not in range" -- "${SEED[@]}" --repeat-steps -1
# a count where nothing repeats steps is refused, not dropped (0 = off stays fine)
expect 2 "error: --repeat-steps 10 times lockstep steps; --mode free has no step boundaries to repeat between (use --mode lockstep, or drop --repeat-steps)" -- "${SEED[@]}" --mode free --repeat-steps 10
expect 0 "ok: matches the reference" -- "${SEED[@]}" --mode free --repeat-steps 0
expect 2 "error: --repeat-steps 3: the cuda backend does not repeat steps (threads and mpi do); drop --repeat-steps" -- "${SEED[@]}" --backend cuda --repeat-steps 3
expect 2 "error: --repeat-steps 3: the nccl backend does not repeat steps" -- "${SEED[@]}" --backend nccl --repeat-steps 3
if command -v python3 >/dev/null; then
  # Every step of a 4-step ring: the fields present, p10 <= median <= p90.
  out=$("$BIN" run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" --json --repeat-steps 5)
  if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
t = d["step_times"]
assert len(t) == 4, t
for k, s in enumerate(t):
    assert s["step"] == k and s["repetitions"] == 5 and s["predicted_us"] is None, s
    assert 0 < s["p10_us"] <= s["median_us"] <= s["p90_us"], s
    assert s["first_run_us"] > 0 and s["includes_barrier"] is True, s
# the totals: the sum of the step medians and of the first runs (3 decimals each)
assert abs(d["median_total_us"] - sum(s["median_us"] for s in t)) < 0.01, d
assert abs(d["first_run_total_us"] - sum(s["first_run_us"] for s in t)) < 0.01, d
assert d["time_us"] > 0, d
' "$out"; then passed=$((passed + 1)); else echo "FAIL: step_times of the 4-step ring: $out"; fail=$((fail + 1)); fi
  # unrepeated steps have no median total
  out=$("$BIN" "${SEED[@]}" --json --repeat-steps 0)
  if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["median_total_us"] is None and d["first_run_total_us"] > 0, d
' "$out"; then passed=$((passed + 1)); else echo "FAIL: --repeat-steps 0 totals: $out"; fail=$((fail + 1)); fi
fi
# run --steps' last line: the sum of the warm step medians, the cold first run named apart
out=$("$BIN" "${SEED[@]}" --steps --repeat-steps 7 2>&1)
last=$(grep -E '^2 steps · ' <<<"$out")
if ! python3 -c '
import re, sys
out, last = sys.argv[1], sys.argv[2]
m = re.fullmatch(r"2 steps · ([0-9.]+) µs measured \(sum of step medians over 7 warm runs; first run ([0-9.]+) µs\) · matches the reference", last)
assert m, last
med = [float(x) for x in re.findall(r"· ([0-9.]+) µs median \(", out)]
first = [float(x) for x in re.findall(r"; first run ([0-9.]+) µs\)", out)][:2]
assert len(med) == 2 and len(first) == 2, (med, first)
assert abs(float(m.group(1)) - sum(med)) <= 0.11, (m.group(1), med)
assert abs(float(m.group(2)) - sum(first)) <= 0.11, (m.group(2), first)
' "$out" "$last"; then echo "FAIL: run --steps headline: $last"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 "2 steps · " -- "${SEED[@]}" --steps --repeat-steps 0
expect 0 " µs measured (lockstep) · matches the reference" -- "${SEED[@]}" --steps --repeat-steps 0
expect 0 " µs measured (free) · matches the reference" -- "${SEED[@]}" --steps --mode free
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
# on threads a row is the median of 9 passes unless --passes says otherwise
expect 0 "# 9 passes over the sizes (ascending, ..., descending, ascending): a row's time is the median of its 9 pass medians" -- bench -b 4K -e 4K -n 2 -w 1
expect 2 "error: --record and --record-overhead exclude each other" -- bench -b 4K -e 4K --record --record-overhead 2
# a calibrated profile gets a check of the machine's state; a preset has none to check
CHECKED=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
cat > "$CHECKED" <<'JSON'
{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6],
 "points": [{"bytes": 4, "seconds": 1e-6}, {"bytes": 32768, "seconds": 2e-6}]}
JSON
expect 0 "by the profile (x" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$CHECKED"
expect 0 "takes" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$CHECKED" --json
# ... and before every size, the reference step again: the footer says in which state each size ran
expect 0 "# Machine state        : the 32 KiB reference steps (the header's machine-state probe), timed again before each size, took x" -- bench -b 4K -e 8K -n 2 -w 1 --profile "$CHECKED"
expect 0 "under(#)  in state(#)  median in state(%)" -- bench -b 4K -e 8K -n 2 -w 1 --summary --profile "$CHECKED"
expect 0 '"state_x": ' -- bench -b 4K -e 4K -n 2 -w 1 --json --profile "$CHECKED"
expect 0 "# Machine state        : " -- bench -b 4K -e 4K -n 2 -w 1 --csv --profile "$CHECKED"
# the header says what the probe times: one way only for a profile without the both-ranks step ...
expect 0 "# machine-state probe: before each size, a 32 KiB lockstep message between 2 ranks is timed again against the profile (an older profile: it has no both-ranks step" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$CHECKED"
# ... both ways when calibrate measured that step
BOTH=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6], "exchange_32k_step_s": 3e-6, "points": [{"bytes": 32768, "seconds": 2e-6}]}' > "$BOTH"
expect 0 "# machine-state probe: before each size, a 32 KiB lockstep message between 2 ranks and a step in which both ranks receive 32 KiB at once are timed again" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$BOTH"
rm -f "$BOTH"
# a profile without the 32 KiB point (calibrate --quick) has no reference step to time again
NOPOINT=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6]}' > "$NOPOINT"
out=$("$BIN" bench -b 4K -e 4K -n 2 -w 1 --profile "$NOPOINT" 2>&1)
if grep -q "Machine state" <<<"$out" || ! grep -q "profile check" <<<"$out"; then echo "FAIL: a profile without the 32 KiB point: $out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
if ! grep -q "# machine-state probe: none (the profile has no 32 KiB point: a quick calibration" <<<"$out"; then echo "FAIL: no word on the missing probe: $out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$NOPOINT"
# more ranks than the profile's CPUs: the step w(n) came from is timed again against b(n) + α + w(n); not at n <= cores
# (tables for n = 2 .. CPUs + 1 of this machine, as its calibrate writes them)
NC=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # the CPUs this process may run on, as the ranks
BT=$(seq 2 $((NC + 1)) | sed 's/.*/2e-6/' | paste -sd,)
WT=$(seq 2 $((NC + 1)) | awk -v c="$NC" '{ print ($1 > c ? "3e-6" : "0") }' | paste -sd,)
PW=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
echo "{\"alpha_s\": 1e-6, \"beta_s_per_byte\": 1e-10, \"cores\": $NC, \"barrier_s_by_ranks\": [$BT], \"peer_wait_s_by_ranks\": [$WT]}" > "$PW"
expect 0 "# peer-wait check: a lockstep ring shift of one 4-byte message among $((NC + 1)) ranks on $NC CPUs (message + barrier + peer wait) takes" -- bench -b 4K -e 4K -n 2 -w 1 --ranks $((NC + 1)) --profile "$PW"
expect 0 "; its w($((NC + 1))) = 3.000 us)" -- bench -b 4K -e 4K -n 2 -w 1 --ranks $((NC + 1)) --profile "$PW"
out=$("$BIN" bench -b 4K -e 4K -n 2 -w 1 --ranks "$NC" --profile "$PW" 2>&1)
if grep -q "peer-wait check" <<<"$out"; then echo "FAIL: a peer-wait check at $NC ranks on $NC CPUs"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$PW"
expect 0 "# prediction: profile $CHECKED (α = 1.000 us, bandwidth = 10.000 GB/s)" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$CHECKED"
expect 0 "# prediction: preset nvlink (a what-if for other hardware; the times are this machine's) (α = 1.000 us, bandwidth = 600.000 GB/s)" -- bench -b 4K -e 4K -n 2 -w 1 --preset nvlink --profile "$CHECKED"
out=$("$BIN" bench -b 4K -e 4K -n 2 -w 1 --preset nvlink 2>&1)
if grep -q "profile check" <<<"$out"; then echo "FAIL: a preset got a profile check"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
if grep -q "Machine state" <<<"$out"; then echo "FAIL: a preset got a machine-state probe"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a threads profile from before waiting ranks spin (no "threads_wait": "spin"): bench's check calls it no match,
# predict and run say so once on stderr; with the key, nothing
OLD=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
echo '{"backend": "threads", "alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6]}' > "$OLD"
STALE='note: the profile is from before waiting ranks spin (it has no "threads_wait": "spin"): its barriers, peer waits and steps were measured with ranks that yielded at once; run `microddp calibrate` again'
expect 0 "$STALE" -- predict -n 2 --bytes 4K -a ring --profile "$OLD"
expect 0 "$STALE" -- run -n 2 -c all_reduce -a ring --count 4 --profile "$OLD"
expect 0 'in the profile: does NOT match: the profile is from before waiting ranks spin (it has no "threads_wait": "spin")' -- bench -b 4K -e 4K -n 2 -w 1 --profile "$OLD"
sed -i 's/"backend": "threads",/"backend": "threads", "threads_wait": "spin",/' "$OLD"
out=$("$BIN" predict -n 2 --bytes 4K -a ring --profile "$OLD" 2>&1)
if grep -q "before waiting ranks spin" <<<"$out"; then echo "FAIL: a current profile called stale: $out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$OLD"
# a flag of the wrong JSON type is refused, not read as "absent" (a full calibration)
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "quick": "yes"}' > "$CHECKED"
expect 2 "error: profile '$CHECKED': quick = \"yes\" (expected true or false)" -- run -n 2 --profile "$CHECKED"
rm -f "$CHECKED"
expect 2 "error: cannot read input file '/nonexistent.json'" -- run -n 2 --input /nonexistent.json
expect 2 "error: unknown fill 'zeros'" -- run -n 2 --fill zeros
expect 2 "error: unknown mode 'async'" -- run --mode async
expect 2 "error: segments = 2 needs the chunked ring" -- run -a tree --segments 2
expect 2 "error: --counts is only for gather" -- run -c all_reduce --counts 1,2,3
expect 2 "error: cannot write trace file" -- "${SEED[@]}" --trace /nonexistent/dir/t.json
expect 2 "error: " -- "${SEED[@]}" --backend cuda
# cuda runs every protocol: without a GPU the refusal is about the device, not the protocol
for proto in ll ll128 auto; do
  expect 2 "no CUDA" -- "${SEED[@]}" --backend cuda --protocol $proto
done
expect 2 "error: unknown backend 'gloo'" -- "${SEED[@]}" --backend gloo
# int64 stays exact beyond 2^53 (no detour through double)
expect 0 '"outputs": [[9007199254740993, 1, 1]' -- run -c all_reduce -a ring -n 3 --dtype int64 --data "9007199254740993,1,1;0,0,0;0,0,0" --json
expect 0 '"ok": true' -- run -c all_reduce -a tree -n 2 --dtype int64 --data "9223372036854775807;0" --json
expect 2 "does not fit int64" -- run -n 2 --dtype int64 --data "9223372036854775808;0"
# absurd sizes are refused before anything is allocated
expect 2 "error: count 99999999999999 on 3 ranks needs" -- run -n 3 --count 99999999999999
expect 2 "error: --ranks 257 is more than this tool runs (at most 256)" -- run -n 257
# one cap for every command (core/ir/limits.h)
expect 2 "error: --ranks 300 is more than this tool runs (at most 256)" -- bench --ranks 300
expect 2 "error: segments must be in 1..4096, got 1000000" -- run --segments 1000000
# --channels (issue 35): the vector in C slices run at once; run --json always reports "channels"
expect 0 '"segments": 1, "channels": 1, "backend"' -- "${SEED[@]}" --json
expect 0 '"segments": 1, "channels": 2, "backend"' -- run -c all_reduce -a ring -n 4 --count 16 --fill iota --channels 2 --json
expect 0 '"ok": true' -- run -c all_reduce -a double_binary_tree -n 5 --count 13 --segments 2 --channels 3 --fill random:2 --json
expect 0 '"steps": 6' -- run -c all_reduce -a ring -n 4 --count 16 --channels 2 --json
expect 0 "R0 → R1  send input chunk 0 ch 0 [0, 2)" -- run -c all_reduce -a ring -n 4 --count 16 --fill iota --channels 2 --steps
expect 0 "R0 → R1  send input chunk 4 ch 1 [8, 10)" -- run -c all_reduce -a ring -n 4 --count 16 --fill iota --channels 2 --steps
expect 0 '"ok": true' -- run -c all_reduce -a one_shot -n 4 --count 9 --fill random:4 --in-place --json
expect 0 '"steps": 2, ' -- run -c all_reduce -a two_shot -n 4 --count 9 --json
expect 2 "error: channels must be in 1..64, got 0" -- run --channels 0
expect 2 "error: channels must be in 1..64, got 65" -- run --channels 65
expect 2 "error: channels = 2: algorithm 'naive' does not run in channels (for all_reduce: ring, double_binary_tree)" -- run -a naive --channels 2
expect 2 "error: --channels 0 is out of range (1..64)" -- predict --channels 0
# --input infers the count like --data
TMPJ=$(mktemp); echo '{"inputs": [[1,2,3],[4,5,6],[7,8,9]]}' > "$TMPJ"
expect 0 "R1 [12, 15, 18]" -- run -c all_reduce -a ring -n 3 --input "$TMPJ" --outputs
echo '{"inputs": [[1,2,3],[4,5,6],[7,8,"x"]]}' > "$TMPJ"
expect 2 "'x' is not a number" -- run -c all_reduce -a ring -n 3 --input "$TMPJ"
rm -f "$TMPJ"
# predict validates its link
expect 2 "error: --alpha nan must be a finite number" -- predict --alpha nan --bandwidth inf
expect 2 "error: --bandwidth 0 must be a finite, positive number" -- predict --alpha 1e-6 --bandwidth 0
expect 0 "23.9x the time on nvlink" -- predict -c all_reduce -a ring --ranks 8 --bytes 1e9 --preset nvlink,infiniband
# a comma list of presets: one block per preset, none silently dropped
out=$("$BIN" predict --algorithm all --preset nvlink,infiniband --ranks 4 --bytes 1M 2>&1)
if [ "$(grep -c '^all_reduce, 4 ranks, 1 MiB (1048576 B); ' <<<"$out")" -ne 2 ] || ! grep -qF "1 MiB (1048576 B); infiniband: α = 2 us, bandwidth = 25 GB/s" <<<"$out" \
   || ! grep -qE "^ring +6 +12.00 +62.91 +0.00 +74.91 " <<<"$out" || ! grep -qF "α term (us)" <<<"$out"; then
  echo "FAIL: predict -a all --preset nvlink,infiniband:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# one row per all_reduce algorithm (11, issue 35 added double_binary_tree, one_shot, two_shot, nvls) and preset;
# infiniband has no reducing switch: nvls left out there (10 rows)
out=$("$BIN" predict --algorithm all --preset nvlink,infiniband --ranks 4 --bytes 1M --json 2>&1)
if [ "$(grep -c '"model": "infiniband"}' <<<"$out")" -ne 10 ] || [ "$(grep -c '"model": "nvlink"}' <<<"$out")" -ne 11 ]; then
  echo "FAIL: predict --json with two presets:"; echo "$out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 "auto picks halving_doubling on infiniband" -- predict -a auto --preset nvlink,infiniband --ranks 4 --bytes 1M
# nvls on a flat preset: nvlink's NVSwitch (a port per rank, line-rate reduction), refused on a preset without one
expect 0 "nvls                      2         0.0020         3.5791         0.0000         3.5811         3.5811                -
(nvls on nvlink: an NVSwitch with a port per rank at the preset's α and bandwidth (1 us, 600 GB/s), reducing at line rate; not the flat model's one-port switch thread, not a measured NVLS figure)" -- predict -a all --preset nvlink -n 8 --bytes 1G
expect 0 "  total            3.5811 ms   (schedule)" -- predict -a nvls --preset nvlink -n 8 --bytes 1G
expect 2 "error: -a nvls reduces in an NVSwitch; the flat preset pcie5 has no switch that reduces (the flat model would run it as one CPU thread with one port): use --preset nvlink or --topology dgx-h100" -- predict -a nvls --preset pcie5 -n 8
out=$("$BIN" predict --sweep -a nvls --preset pcie5 -n 4 2>&1); rc=$?
if [ "$rc" -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ]; then echo "FAIL: predict --sweep -a nvls --preset pcie5 printed before its refusal: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 "(nvls left out: the flat preset infiniband has no switch that reduces; --topology dgx-h100 prices NVLS on an NVSwitch)" -- predict -a auto --preset infiniband -n 8 --bytes 1M
out=$("$BIN" predict -a all --preset pcie5 -n 8 --bytes 1M 2>&1; "$BIN" predict --table --preset pcie5 -n 8 -b 1K -e 1M -f 32 2>&1)
if grep -qE "^nvls | nvls( |$)" <<<"$out" || [ "$(grep -c '^(nvls left out: the flat preset pcie5' <<<"$out")" -ne 2 ]; then
  echo "FAIL: nvls on pcie5 not left out:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# the α column of the per-port table is per message: 8 channels' ring, 30 steps x 7 intra messages, at 1 MiB and 1 GiB
expect 0 "ring                  30       210.00         3.82       213.82" -- predict -a ring --channels 8 --topology dgx-h100 --ranks 16 --bytes 1M
# sizes in prose: binary units with the exact bytes beside (docs/design.md, one vocabulary)
expect 0 "crossover: ring overtakes tree at 512 KiB (524288 B)" -- predict --sweep --preset nvlink
# predict --nccl-system: NCCL's own tuner (core/model/nccl_tuner.h), labelled, in NCCL's INFO line shape
expect 0 "NCCL-shaped tuner (NCCL 2.30.7 tuning.cc constants), not microddp's textbook α-β choice (--textbook)" -- predict --nccl-system dgx-h100 -b 8 -e 8
expect 0 "AllReduce: 67108864 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}   predicted 271.724 us" -- predict --nccl-system dgx-h100 --bytes 64M
expect 0 "AllGather: 131072 Bytes -> Algo RING proto" -- predict --nccl-system dgx-a100-2node -c all_gather --bytes 2M
out=$(MICRODDP_DEBUG=INFO "$BIN" predict --nccl-system dgx-a100 -b 1M -e 1M 2>&1 >/dev/null)
if [[ "$out" != *"MICRODDP INFO AllReduce: 1048576 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}"* ]]; then
  echo "FAIL: MICRODDP_DEBUG=INFO predict --nccl-system:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# the tuner against the shipped published tables (scripts/published-accuracy.sh prints them all): each system's median |error|
NTD="$(cd "$(dirname "$0")/../data/nccl-tests" && pwd)"
expect 0 "median |error|: 10.7% over 32 rows (<= 4 KiB: 12.6% (10 rows); 4 KiB..1 MiB: 17.5% (8 rows); 1 MiB..512 MiB: 21.1% (8 rows); >= 512 MiB: 1.6% (6 rows))" -- predict --nccl-system dgx-h100 --against $NTD/h100-2x8-ib-allreduce.txt
expect 0 "median |error|: 51.9% over 28 rows (<= 4 KiB: 53.1% (7 rows); 4 KiB..1 MiB: 53.6% (8 rows); 1 MiB..512 MiB: 26.8% (8 rows); >= 512 MiB: 3.2% (5 rows))" -- predict --nccl-system dgx-a100 --against $NTD/a100-1x8-allreduce.txt
expect 0 "median |error|: 20.3% over 14 rows (4 KiB..1 MiB: 16.6% (1 row); 1 MiB..512 MiB: 31.7% (8 rows); >= 512 MiB: 11.6% (5 rows))" -- predict --topology dgx-h100 -a auto -c all_reduce --against $NTD/h100-8x8-allreduce.txt
expect 0 "median |error|: 4.5% over 5 rows (>= 512 MiB: 4.5% (5 rows))" -- predict --nccl-system hgx-h200 --against $NTD/h200-2x8-allreduce.txt
# the systems fitted to one table each (launch and bus-bandwidth scale, sources in nccl_tuning_table.h fitted_table()), on their own table
expect 0 "median |error|: 1.7% over 28 rows (<= 4 KiB: 0.1% (7 rows); 4 KiB..1 MiB: 7.8% (8 rows); 1 MiB..512 MiB: 19.4% (8 rows); >= 512 MiB: 0.9% (5 rows))" -- predict --nccl-system oci-a100-g8 --against $NTD/a100-1x8-allreduce.txt
expect 0 "median |error|: 6.5% over 28 rows (<= 4 KiB: 3.2% (7 rows); 4 KiB..1 MiB: 14.7% (8 rows); 1 MiB..512 MiB: 20.3% (8 rows); >= 512 MiB: 0.4% (5 rows))" -- predict --nccl-system oci-a100-roce-2node --against $NTD/a100-2x8-allreduce.txt
expect 0 "median |error|: 8.9% over 31 rows (<= 4 KiB: 1.2% (10 rows); 4 KiB..1 MiB: 10.0% (8 rows); 1 MiB..512 MiB: 51.8% (8 rows); >= 512 MiB: 5.2% (5 rows))" -- predict --nccl-system a3mega-h100-2node --against $NTD/h100-2x8-allreduce.txt
expect 0 '"model": "NCCL-shaped tuner (NCCL 2.30.7 tuning.cc constants) on dgx-h100, 2 node(s) x 8 GPUs", "algorithm": "NCCL'"'"'s choice per size"' -- predict --nccl-system dgx-h100 --against $NTD/h100-2x8-ib-allreduce.txt --json
# a table of a node shape no named system has (4 GPUs per node): the nearest, the asked system cut to it, said in a line
expect 0 "mismatch: $NTD/gh200-2x4-allreduce.txt has 4 GPUs per node (NVIDIA GH200 120GB) on 2 nodes; no named system has 4 per node; priced on dgx-h100's hardware cut to 4 GPUs and 4 NICs per node, the nearest (NVLink, NVSwitch, NVLS and NICs are dgx-h100's, not the table's system's)" -- predict --nccl-system dgx-h100 --against $NTD/gh200-2x4-allreduce.txt
expect 0 "median |error|: 43.6% over 25 rows (<= 4 KiB: 8.3% (10 rows); 4 KiB..1 MiB: 60.3% (8 rows); 1 MiB..512 MiB: 64.2% (7 rows))" -- predict --nccl-system dgx-h100 --against $NTD/gh200-2x4-allreduce.txt
expect 2 "error: unknown NCCL system 'dgx-x' (known: dgx-a100, dgx-a100-2node, dgx-h100, dgx-h100-2node, hgx-h200, hgx-h200-2node, pcie-a100, oci-a100-g8, oci-a100-roce-2node, a3mega-h100-2node)" -- predict --nccl-system dgx-x
expect 2 "error: --ranks 12 is not divisible by the 8 GPUs per node of NCCL system dgx-a100" -- predict --nccl-system dgx-a100 --ranks 12
expect 2 "error: size 0 B: the NCCL-shaped tuner needs at least 1 byte" -- predict --nccl-system dgx-a100 --bytes 0
expect 2 "error: --nccl-system dgx-a100 takes its model from the system: leave out --preset" -- predict --nccl-system dgx-a100 --preset nvlink
# hierarchical in channels as a pipeline (core/model/channel_pipeline.h): one channel + (C-1) x the busiest port
expect 0 "  pipelined        4.6272 ms = one channel + 7 x busiest port   algbw 232.050, busbw 435.093" -- predict -a hierarchical --topology dgx-h100 --ranks 16 --bytes 1G --channels 8
expect 0 '"channels": 8, "channel_count": 33554432, "steps_per_channel": 16, ' -- predict -a hierarchical --topology dgx-h100 --ranks 16 --bytes 1G --channels 8 --json
expect 2 "error: unknown preset 'infiniband2'" -- predict -a all --preset nvlink,infiniband2
expect 2 "error: --preset 'nvlink,': entry 2 is empty" -- predict -a all --preset nvlink,
# a profile with a cache curve: the closed form prices bytes at the flat β, γ (measured on rotating buffers past L2), the schedule
# each step at its footprint on the curve; two lines say so with the numbers, and --json carries them
CURVE=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
cat > "$CURVE" <<'JSON'
{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "gamma_s_per_byte": 1e-10, "fused_recv_reduce": true, "cores": 2,
 "cache_curve": {"footprint_bytes": [1048576, 4194304], "beta_s_per_byte": [2e-11, 1e-10],
                 "gamma_s_per_byte": [4e-11, 1e-10], "delta_s_per_byte": [2e-11, 1e-10]}}
JSON
out=$("$BIN" predict -n 4 --bytes 512K -a tree --profile "$CURVE" 2>&1)
if [ "$(tail -2 <<<"$out")" != "  closed form vs schedule: the closed form prices its bytes at the profile's flat β = 1e-10 s/B (10 GB/s), γ = 1e-10 s/B (measured on rotating buffers past L2);
    the schedule prices each step at its footprint (1 MiB..5 MiB) on the profile's cache curve: β = 2e-11..6e-11 s/B (50..16.67 GB/s), γ = 8.755e-11..1e-10 s/B" ]; then
  echo "FAIL: predict with a cache curve, tree:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
out=$("$BIN" predict -n 4 --bytes 256K -a ring --profile "$CURVE" 2>&1)
if [ "$(tail -3 <<<"$out")" != "  schedule: lockstep 46.32 us, pipelined 46.32 us
  closed form vs schedule: the closed form prices its bytes at the profile's flat β = 1e-10 s/B (10 GB/s), γ = 1e-10 s/B (measured on rotating buffers past L2);
    the schedule prices each step at its footprint (512 KiB..1.25 MiB) on the profile's cache curve: β = 2e-11 s/B (50 GB/s), γ = 4.966e-11 s/B" ]; then
  echo "FAIL: predict with a cache curve, ring:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# --json: total_s is the text's lockstep time (shared cores included), beside the closed form and the β, γ of both
expect 0 '"total_s": 4.63183894e-05, "pipelined_s": 4.63183894e-05, "closed_form_s": 6.49824e-05, ' -- predict -n 4 --bytes 256K -a ring --profile "$CURVE" --json
expect 0 '"model": "profile", "closed_form_beta_s_per_byte": 1e-10, "closed_form_gamma_s_per_byte": 1e-10, "schedule_beta_s_per_byte": [2e-11, 2e-11], "schedule_gamma_s_per_byte": [4.96578428e-11, 4.96578428e-11], "schedule_footprint_bytes": [524288, 1310720]}' -- predict -n 4 --bytes 256K -a ring --profile "$CURVE" --json
# below the small-message break both use the small-message line: only γ differs, and the line says so
sed -i 's/"cores": 2,/"cores": 2, "break_bytes": 1048576, "alpha_small_s": 1e-6, "beta_small_s_per_byte": 5e-11,/' "$CURVE"
expect 0 "  closed form vs schedule: the closed form prices its bytes at the profile's flat γ = 1e-10 s/B (measured on rotating buffers past L2); messages below 1048576 B: the small-message β in both;" -- predict -n 4 --bytes 256K -a ring --profile "$CURVE"
expect 0 '"schedule_beta_s_per_byte": null, ' -- predict -n 4 --bytes 256K -a ring --profile "$CURVE" --json
expect 0 ', "small_message_below_bytes": 1048576, "small_message_beta_s_per_byte": 5e-11' -- predict -n 4 --bytes 256K -a ring --profile "$CURVE" --json
# with ε on the curve, predict says what running back to back as bench does adds: naive on 2 ranks, rank 0
# copies its input over the 256 KiB output rank 1 read in the run before, at 1 ns per byte, priced at
# bench's rotation (16 sets of 1 MiB)
expect 0 "; β, γ, δ by step footprint from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE"
sed -i 's/"delta_s_per_byte": \[2e-11, 1e-10\]}/"delta_s_per_byte": [2e-11, 1e-10], "coherence_s_per_byte": [1e-9, 1e-9]}/' "$CURVE"
# bench names ε in its header when it charges it, and only the terms the profile measured
expect 0 "; β, γ, δ by step footprint and ε (writes over what a rank on another core read) by reuse distance from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE"
expect 0 "  run back to back as bench runs it (its buffer rotation, 16777216 B, as the least footprint):
    lockstep 329.68 us; bench predicts 329.68 us (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε adds 262.14 us to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      ε: 262144 B written over bytes a rank on another core read since they were last written
  closed form vs schedule" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# φ at 0.5 ns per byte: rank 1 receives in step 1 the 256 KiB rank 0 wrote in step 0, 131 µs more
sed -i 's/"coherence_s_per_byte": \[1e-9, 1e-9\]}/"coherence_s_per_byte": [1e-9, 1e-9], "fresh_read_s_per_byte": [5e-10, 5e-10]}/' "$CURVE"
expect 0 "; β, γ, δ by step footprint and ε, φ (lines moved between two cores: writes over what a rank on another core read, reads of what one wrote) by reuse distance from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE"
expect 0 "    lockstep 460.75 us; bench predicts 460.75 us (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε and φ add 393.22 us to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      ε: 262144 B written over bytes a rank on another core read since they were last written
      φ: 262144 B received from a sender on another core that wrote them since
  closed form vs schedule" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# with a barrier b(2) = 10 µs: two in the lockstep steps, and bench's figure one more for the iteration's close
sed -i 's/"cores": 2,/"cores": 2, "barrier_s_by_ranks": [1e-5],/' "$CURVE"
expect 0 "    lockstep 480.75 us; bench predicts 490.75 us (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε and φ add 393.22 us to the lockstep time," -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# φ only (ε dropped from the profile): the header and the line name φ alone
sed 's/"coherence_s_per_byte": \[1e-9, 1e-9\], //' "$CURVE" > "$CURVE.phi"
expect 0 "; β, γ, δ by step footprint and φ (reads of what a rank on another core wrote) by reuse distance from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE.phi"
expect 0 "    of which φ adds 131.07 us to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      φ: 262144 B received from a sender on another core that wrote them since
  closed form vs schedule" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE.phi"
rm -f "$CURVE.phi"
# no memory bus, 8 cores, tree all_reduce of 4 KiB on 3 ranks: the receivers' φ hides behind rank 0's two sends,
# and the line says that, not the bus
cat > "$CURVE.tree" <<'JSON'
{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "gamma_s_per_byte": 1e-10, "fused_recv_reduce": true, "cores": 8,
 "cache_curve": {"footprint_bytes": [1048576, 4194304], "beta_s_per_byte": [2e-11, 1e-10], "gamma_s_per_byte": [4e-11, 1e-10],
                 "delta_s_per_byte": [2e-11, 1e-10], "fresh_read_s_per_byte": [2e-10, 2e-10]}}
JSON
expect 0 "      φ: 4096 B received from a sender on another core that wrote them since
      (they would add 0.82 us, but they fall on ranks that are not the slowest of their step)" -- predict -c all_reduce -n 3 --bytes 4K -a tree --profile "$CURVE.tree"
rm -f "$CURVE.tree"
# a memory bus of 1 GB/s sets both steps (1.25 MiB and 512 KiB of traffic): ε and φ add nothing, and the line says why
sed -i 's/"cores": 2,/"cores": 2, "mem_bw_Bps_by_threads": [1e9, 1e9],/' "$CURVE"
# (the back-to-back block, 1.865 ms, takes its own unit: ms)
expect 0 "    of which ε and φ add 0.0000 ms to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      ε: 262144 B written over bytes a rank on another core read since they were last written
      φ: 262144 B received from a sender on another core that wrote them since
      (they would add 0.3932 ms, but the memory bus sets the time of the steps that pay them, not the ranks)" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# tables of a calibrated profile say what their columns are and where bench's figure is; a preset's add up: no note
NOTE_TERMS="(the α, β and γ terms are the lockstep schedule's; lockstep adds δ's copies, the barriers b(n), the peer waits and the memory bus: \`predict -a ALG --bytes N\` lists each)"
NOTE_B2B="(one run on warm buffers; bench runs the collective back to back over rotating buffers, so its data lies farther from the cores: \`predict -a ALG --bytes N\` gives bench's figure too)"
expect 0 "$NOTE_TERMS
$NOTE_B2B" -- predict -n 2 --bytes 256K -a all --profile "$CURVE"
expect 0 "$NOTE_B2B
crossover:" -- predict -n 2 -a ring --sweep --from 4K --to 64K --profile "$CURVE"
out=$("$BIN" predict -n 2 --bytes 256K -a all --preset nvlink 2>&1; "$BIN" predict -n 2 -a ring --sweep --from 4K --to 64K --preset nvlink 2>&1)
if grep -q "lockstep schedule's\|one run on warm buffers" <<<"$out"; then echo "FAIL: a preset's table got the profile note"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$CURVE"
# one unit per block, chosen by its total: ms from 1 ms (4 decimals), s from 1 s (6, so that α's 350 µs still shows)
expect 0 "  α term           0.0140 ms
  β term           3.1317 ms
  total            3.1457 ms   (closed form)" -- predict -n 8 --bytes 1G -a ring --preset nvlink
expect 0 "  α term          0.000350 s
  β term          6.012954 s
  total           6.013304 s   (closed form)" -- predict -n 8 --bytes 4G -a ring --preset ethernet-10g
expect 0 "auto picks halving_doubling on nvlink: naive 25.0680 ms; tree 17.9057 ms; ring 3.1457 ms;" -- predict -n 8 --bytes 1G -a auto --preset nvlink
# the unit is chosen on the value as printed: 999.9998 us would read "1000.00 us"
expect 0 "  total            1.0000 ms   (closed form)" -- predict -n 2 -a ring --bytes 8 --alpha 0.0004999999 --bandwidth 1e15
# without a cache curve (a preset, an older profile) there is nothing to explain: no such line, no such field
out=$("$BIN" predict -n 4 --bytes 256K -a ring --preset nvlink 2>&1; "$BIN" predict -n 4 --bytes 256K -a ring --preset nvlink --json 2>&1)
if grep -q "closed form vs schedule\|closed_form_beta" <<<"$out"; then
  echo "FAIL: predict on a preset explained a cache curve:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 2 "error: width 100000: must be in 1..4096" -- ddp --width 100000
# ddp: one untimed warm-up iteration first (its 4 all-reduces, one per bucket), in no figure; --warmup 0 says iteration 0 is cold
TINY=(ddp -n 2 --depth 2 --width 8 --batch 4 --iterations 1 --bucket-cap-mb 0.00001)
expect 0 "warm-up: 1 untimed iteration ran first (4 collectives; no sleeps, no SGD step), left out of every figure below: the first collectives pay thread start-up and the first touch of buffers" -- "${TINY[@]}"
expect 0 "no warm-up (--warmup 0): iteration 0 is cold (its collectives pay thread start-up and the first touch of buffers)" -- "${TINY[@]}" --warmup 0
out=$("$BIN" "${TINY[@]}" --warmup 2 --json 2>&1)
if ! grep -qF '"warmup_iterations": 2,' <<<"$out" || ! grep -qF '"warmup_calls": 8,' <<<"$out" || ! grep -qF '"iterations": 1,' <<<"$out"; then
  echo "FAIL: ddp --warmup 2 --json:"; echo "$out" | head -30; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 2 "error: warmup 11: must be in 0..10" -- ddp --warmup 11
# an option the chosen mode does not use is refused, naming it
expect 2 "error: --overlap is DDP's (buckets of all-reduces); --sharded all-gathers per layer" -- ddp --sharded --overlap per-param
expect 2 "error: --bucket-cap-mb is DDP's (buckets of all-reduces); --sharded" -- ddp --sharded --bucket-cap-mb 7
expect 2 "error: --no-prefetch is --sharded's (the all-gather of the next layer); plain DDP has no prefetch" -- ddp --no-prefetch
expect 2 "error: --timeline goes into the JSON summary: add --json" -- ddp --timeline
# ddp's defaults: stand-ins for a bigger model and a slower link, and a bucket cap below the 1 MiB model (cmd_ddp.cpp)
expect 0 "stand-ins: 10000 µs of sleep per layer and pass (--layer-delay-us, a bigger model's compute), 10000 µs per MiB of each collective (--link-us-per-mb, a slower link); 0 and 0 show this machine's own" -- ddp -n 2 --depth 2 --width 8 --batch 4 --iterations 1
expect 0 "bucket cap 0.25 MiB (262144 B): 1 buckets" -- ddp -n 2 --depth 2 --width 8 --batch 4 --iterations 1
expect 0 "stand-ins: none (--layer-delay-us 0 --link-us-per-mb 0): this machine's own compute and thread hand-offs" -- "${TINY[@]}" --layer-delay-us 0 --link-us-per-mb 0
expect 2 "error: --data is empty" -- run -n 3 --data ""
expect 2 "error: --count 5 and --counts 0,3,2 both given" -- run -c gather -a naive -n 3 --count 5 --counts 0,3,2
# topology: ranks on nodes, two link classes, the hierarchical all-reduce, auto
TOPO=(predict -c all_reduce -a all --ranks 16 --nodes 2 --intra nvlink --inter infiniband --bytes 1e9)
# one time unit per table (s here: naive takes over a second), no 6e-05 beside 0.075
expect 0 "ring                  30     0.000060     0.075000     0.075060" -- "${TOPO[@]}"
expect 0 "hierarchical          16     0.000046     0.042917     0.042963     0.042963    28000000000     2000000000 node 0 NIC 0 out       1000000000" -- "${TOPO[@]}"
expect 0 '"algorithm": "hierarchical", "collective": "all_reduce", "ranks": 16, "nodes": 2, "nics_per_node": 1, "bytes": 1000000000, "steps": 16' -- "${TOPO[@]}" --json
expect 0 '"bytes_intra": 26250000000, "bytes_inter": 3750000000, "bottleneck": "node 0 NIC 0 out", "bottleneck_bytes": 1875000000' -- "${TOPO[@]}" --json
# NCCL's double tree (issue 35) takes the small sizes across 2 nodes: few NIC crossings
expect 0 "switch: double_binary_tree -> hierarchical at 2 MiB (2097152 B)" -- predict --table -b 8 -e 1G -f 8 --ranks 16 --nodes 2 --intra nvlink --inter infiniband
# nvlink is an NVSwitch fabric: nvls (2 messages a rank) until the halving-doubling's 1.75 S beats its 2 S
expect 0 "switch: nvls -> halving_doubling at 128 MiB (134217728 B)" -- predict --table -b 8 -e 1G -f 16 --ranks 8 --preset nvlink
# on a system the NCCL-shaped tuner knows, auto is NCCL's choice (algorithm, protocol, channels); --textbook the lessons'
expect 0 "AllReduce: 1000000000 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}   predicted 4128.758 us" -- predict -a auto --ranks 16 --topology dgx-h100 --bytes 1e9
expect 0 "auto picks hierarchical (the lowest predicted lockstep time below; the textbook α-β choice among microddp's algorithms, not NCCL's tuner)" -- predict -a auto --ranks 16 --topology dgx-h100 --bytes 1e9 --textbook
expect 0 "AllReduce: 8 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0}                        25.200 us
AllReduce: 64 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0}                       25.203 us" -- predict --table --topology dgx-h100 --ranks 16 -b 8 -e 64 -f 8
expect 0 "AllReduce: 1073741824 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}     6467.990 us" -- predict --table --topology dgx-h100 --ranks 65536 -b 1G -e 1G
expect 0 "switch: recursive_doubling -> hierarchical at 2 MiB (2097152 B)" -- predict --table --textbook -b 8 -e 1G -f 8 --ranks 16 --topology dgx-h100
expect 2 "error: --ranks 65544 is more than the NCCL-shaped tuner models (at most 65536)" -- predict --table --topology dgx-h100 --ranks 65544
expect 2 "error: --topology dgx-h100 --algorithm auto (NCCL's choice; --textbook for microddp's α-β choice) takes its model from the system: leave out --nodes" -- predict -a auto --topology dgx-h100 --ranks 16 --nodes 2
expect 2 "error: --textbook chooses among microddp's algorithms on a named system" -- predict --textbook -n 4
expect 2 "error: --topology hgx-h200 is a system of the NCCL-shaped tuner only: it answers --algorithm auto and --table (NCCL's choice); the per-port model that prices one algorithm, --textbook and --sweep knows dgx-h100, pcie-box, lab" -- predict -a ring --topology hgx-h200 --ranks 8
# rails: 8 channels of the ring cross 2 DGX H100 nodes through 8 NICs (1/8 of the bytes each): busbw 395 GB/s, not one NIC's 50
expect 0 "ring                  30       0.2100       4.8832       5.0932            -    28185722880     4026531840 node 0 NIC 0 out        251658240   210.820   395.288" -- predict -a ring --channels 8 --topology dgx-h100 --ranks 16 --bytes 1G
# hierarchical has no channel split of its own: on a network --channels prices its phases as a pipeline (below); the flat model refuses
expect 2 "error: channels = 8: algorithm 'hierarchical' does not run in channels (for all_reduce: ring, double_binary_tree)" -- predict -a hierarchical --channels 8 --preset nvlink --ranks 16 --bytes 1G
# lesson 02's single-buffered ring run anyway: a transfer's T_q is what the schedule means, not what the overwritten buffer holds
LESSON02="$(cd "$(dirname "$0")/../../lessons" && pwd)/02-ring-double-buffering.yaml"
expect 0 "  R0 ← R2  recv into send_buff meant for T2 [0, 3)  3 elements, 12 B" -- lesson "$LESSON02" --non-interactive
expect 0 "  R0 ← R2  recv into recv_buff (B) holding T2 [0, 3)  3 elements, 12 B" -- lesson "$LESSON02" --non-interactive
# the tuner's path reads the options it shares with the textbook one (review findings)
expect 2 "error: unknown dtype 'bogus'" -- predict --topology dgx-h100 -a auto --bytes 1M --dtype bogus
expect 2 "error: root 99 is out of range for world size 8" -- predict --topology dgx-h100 -a auto -c broadcast --root 99 --bytes 1M
expect 0 "AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}" -- predict --nccl-system dgx-h100-2node -c all_gather
expect 2 "error: -b 8: all_gather on 16 ranks needs at least 64 B (one float32 per rank)" -- predict --nccl-system dgx-h100-2node -c all_gather -b 8
expect 2 "error: unknown topology 'bogus' (the per-port model's: dgx-h100, pcie-box, lab; the NCCL-shaped tuner's, for --algorithm auto and --table: dgx-a100," -- predict --topology bogus -a ring
expect 0 "      size (B)               ring
       1048576            213.823" -- predict --topology dgx-h100 --ranks 16 -a ring --channels 8 --sweep --from 1M --to 4M
# Issue 38: every numeric option bounded and named, refused before any output.
refuse() {  # refuse <the error line, or its start> -- args: exit 2, nothing on stdout, one line on stderr
  local want="$1"; shift 2
  local out err rc
  out=$("$BIN" "$@" 2>/tmp/microddp-cli-refuse.$$); rc=$?; err=$(cat /tmp/microddp-cli-refuse.$$)
  rm -f /tmp/microddp-cli-refuse.$$
  if [ "$rc" -ne 2 ] || [ -n "$out" ] || [ "$(wc -l <<<"$err")" -ne 1 ] || [[ "$err" != "$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc (wanted 2), stdout: $(head -3 <<<"$out")"; echo "      stderr: $err"
    echo "      wanted: $want"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
}
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
# nvls on the dgx-h100: the switch's per-rank ports at the preset's figure, by hand 2·(1 µs + 1e9 B / 450 GB/s);
# with 8 segments the two directions overlap: 9·(1 µs + 1.25e8 B / 450 GB/s) = 2.509 ms, below the ring's 3.903 ms
NVP=(predict -c all_reduce -a nvls --ranks 8 --topology dgx-h100 --bytes 1e9)
expect 0 "nvls                   2       0.0020       4.4444       4.4464       4.4464    16000000000              0 R0 intra out           1000000000   224.899   393.573" -- "${NVP[@]}"
expect 0 "reducing switch nvls-nvswitch3 (α = 1 us, 450 GB/s) per rank port (the switch port's bandwidth is the preset's: the DGX H100's NVLink 4 rate per GPU" -- "${NVP[@]}"
expect 0 "nvls                   9       0.0090       2.5000       2.5090       2.5090" -- "${NVP[@]}" --segments 8
# on the flat model the switch is one thread with one port (the threads backend's): 2n·(α + S·β) = 16·(1 µs + 1e9 B / 600 GB/s);
# the nvlink preset is an NVSwitch fabric: a port per rank at nvlink's figure, 2·(1 µs + 1e9 B / 600 GB/s)
expect 0 "total           26.6827 ms   (closed form)" -- predict -c all_reduce -a nvls --ranks 8 --bytes 1e9 --alpha 1e-6 --bandwidth 600e9
expect 0 "total            3.3353 ms   (schedule)" -- predict -c all_reduce -a nvls --ranks 8 --bytes 1e9 --preset nvlink
expect 0 "crossover: hierarchical is faster than ring from 1 KiB (1024 B) on" -- predict --sweep -a ring --ranks 8 --nodes 4 --intra nvlink --inter ethernet-100g --from 1K --to 1G
expect 0 '"auto": {"chosen": "hierarchical", "model": "2 node(s) x 4, 1 NIC(s) per node, intra nvlink, inter ethernet-10g"' -- run -c all_reduce -a auto -n 8 --nodes 2 --inter ethernet-10g --count 100000 --fill iota --json
expect 0 '"algorithm": "recursive_doubling"' -- run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4" --json
expect 0 "auto: chose recursive_doubling (lowest predicted lockstep time on nvlink); candidates: naive 6.000 µs" -- run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4" --steps
expect 0 "R0 [10]" -- run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4" --outputs
expect 0 '"ok": true' -- run -c all_reduce -a hierarchical -n 6 --nodes 3 --count 7 --fill random:2 --json
expect 0 '"nodes": 3' -- run -c all_reduce -a hierarchical -n 6 --nodes 3 --count 7 --fill random:2 --json
MICRODDP_DEBUG=INFO expect 0 "all_reduce: 4 Bytes -> Algo recursive_doubling time 2.000 us (model: nvlink)" -- run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4"
MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=INIT,TUNING expect 0 "all_reduce: 4 Bytes -> Algo recursive_doubling time 2.000 us (model: nvlink)" -- run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4"
# The TUNING lines carry the documented prefix (README: microddp:<pid>:<tid> [<rank>] MICRODDP INFO ...)
out=$(MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=TUNING "$BIN" run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4" 2>&1 >/dev/null)
if [ "$(grep -Ec '^microddp:[0-9]+:[0-9]+ \[0\] MICRODDP INFO all_reduce: ' <<<"$out")" -ne 12 ] || [ "$(wc -l <<<"$out")" -ne 12 ] ||
   ! grep -qE '^microddp:[0-9]+:[0-9]+ \[0\] MICRODDP INFO all_reduce: 4 Bytes -> Algo recursive_doubling time 2.000 us \(model: nvlink\)$' <<<"$out"; then
  echo "FAIL: MICRODDP_DEBUG_SUBSYS=TUNING run logged:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# run logs as hang-lab does: per rank an INIT and a COLL line (INFO), P2P and the call's end (TRACE)
# (stderr also carries run's one-line hint that no profile exists: this suite has none)
out=$(MICRODDP_DEBUG=INFO "$BIN" run -c all_reduce -a ring -n 3 --data "1,2,3;4,5,6;7,8,9" 2>&1 >/dev/null | grep -v "^hint: no calibration profile")
if [ "$(wc -l <<<"$out")" -ne 6 ] ||
   ! grep -qE '^microddp:[0-9]+:[0-9]+ \[1\] MICRODDP INFO init: rank 1 nranks 3 backend threads$' <<<"$out" ||
   ! grep -qE '^microddp:[0-9]+:[0-9]+ \[2\] MICRODDP INFO all_reduce: seq 0 algorithm ring count 3 dtype float32 op sum nranks 3 steps 4 peers 0,1$' <<<"$out"; then
  echo "FAIL: MICRODDP_DEBUG=INFO run logged:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
out=$(MICRODDP_DEBUG=TRACE MICRODDP_DEBUG_SUBSYS=P2P "$BIN" run -c broadcast -a binomial -n 4 --root 1 --data "1;2;3;4" 2>&1 >/dev/null | grep -v "^hint: no calibration profile")
if [ "$(wc -l <<<"$out")" -ne 4 ] || [ "$(grep -c 'MICRODDP TRACE call #0 p2p: ' <<<"$out")" -ne 4 ]; then
  echo "FAIL: MICRODDP_DEBUG_SUBSYS=P2P run logged:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a level or subsystem the logger does not know is refused, not read as WARN / skipped
MICRODDP_DEBUG=LOUD expect 2 "error: MICRODDP_DEBUG 'LOUD' is not a log level (expected WARN, INFO or TRACE, any case; unset or empty: no log)" -- "${SEED[@]}"
MICRODDP_DEBUG=LOUD expect 2 "error: MICRODDP_DEBUG 'LOUD' is not a log level" -- hang-lab
# Unknown subsystem names are ignored, as NCCL ignores them (README): NCCL's
# own BOOTSTRAP alone logs no microddp line and exits 0; coll,NET logs COLL.
out=$(MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=BOOTSTRAP "$BIN" "${SEED[@]}" 2>&1); rc=$?
if [ $rc -ne 0 ] || grep -q "MICRODDP INFO" <<<"$out" || ! grep -qF "ok: matches the reference" <<<"$out"; then
  echo "FAIL: MICRODDP_DEBUG_SUBSYS=BOOTSTRAP run -> exit $rc:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=coll,NET expect 0 "MICRODDP INFO all_reduce: seq 0 algorithm ring_unchunked" -- "${SEED[@]}"
MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS=^^P2P expect 0 "ok: matches the reference" -- "${SEED[@]}"
MICRODDP_DEBUG=trace MICRODDP_DEBUG_SUBSYS=^p2p,Tuning expect 0 "MICRODDP TRACE call #0 completed in" -- "${SEED[@]}"
# MICRODDP_DEBUG_SUBSYS filters like NCCL_DEBUG_SUBSYS: without TUNING the choice is not logged
for sub in COLL "^TUNING" "^ALL"; do
  out=$(MICRODDP_DEBUG=INFO MICRODDP_DEBUG_SUBSYS="$sub" "$BIN" run -c all_reduce -a auto -n 4 --preset nvlink --data "1;2;3;4" 2>&1 >/dev/null)
  case $sub in
    COLL) want=4 ;;      # one COLL line per rank
    "^TUNING") want=8 ;;  # INIT and COLL per rank
    *) want=0 ;;
  esac
  if grep -q 'Bytes' <<<"$out" || [ "$(grep -c MICRODDP <<<"$out")" -ne "$want" ]; then
    echo "FAIL: MICRODDP_DEBUG_SUBSYS=$sub logged: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
out=$(MICRODDP_DEBUG=TRACE MICRODDP_DEBUG_SUBSYS=P2P "$BIN" hang-lab --ranks 3 2>&1 >/dev/null)
if [ "$(grep -c "MICRODDP TRACE call #[0-9] p2p: " <<<"$out")" -ne 9 ] || [ "$(wc -l <<<"$out")" -ne 9 ]; then
  echo "FAIL: MICRODDP_DEBUG_SUBSYS=P2P hang-lab logged:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 2 "error: --ranks 6 is not divisible by --nodes 4" -- predict -a all --ranks 6 --nodes 4 --intra nvlink --inter infiniband
expect 2 "error: --ranks 6 is not divisible by --nodes 4" -- run -a hierarchical -n 6 --nodes 4
expect 2 "error: --nics-per-node 0 is out of range (1..4" -- predict --ranks 8 --nodes 2 --nics-per-node 0 --intra nvlink --inter infiniband
expect 2 "error: --nics-per-node 5 is out of range (1..4" -- predict --ranks 8 --nodes 2 --nics-per-node 5 --intra nvlink --inter infiniband
expect 2 "error: --inter is missing: --nodes 2" -- predict --ranks 8 --nodes 2 --intra nvlink
expect 2 "error: --inter is missing" -- run -a auto -n 8 --nodes 2
expect 2 "error: --inter 'infiniband2' is neither a preset" -- predict --ranks 8 --nodes 2 --intra nvlink --inter infiniband2
expect 2 "error: unknown topology 'dgx'" -- predict --ranks 8 --topology dgx
# ok never lies: ranks that must agree and do not are a mismatch, named
expect 1 '"ok": false, "identical_ranks": false, "differing_ranks": [2]' -- run -n 3 -a ring_unchunked --dtype float32 --data "16777216;1;1" --json
expect 1 "ranks differ: R0's bits differ from R2" -- run -n 3 -a ring_unchunked --dtype bfloat16 --data "256;1;1" --steps
expect 0 '"identical_ranks": true, "differing_ranks": []' -- run -n 3 -a ring --data "1;2;3" --json
# ok is the run's bits against its own order's exact result (issue 38): inputs whose
# result depends on the order are ok, order_dependent, and the overflow is named
OD='"ok": true, "identical_ranks": true, "differing_ranks": [], "order_dependent": true, "order_dependent_element": {"rank": 0, "index": 0, "why": "rank 0, element 0: '
# NCCL's double binary tree (issue 35) combines in another order at n = 3 and avoids each overflow
DBT='; double_binary_tree'"'"'s order gives '
expect 0 "$OD"'300 × 300 = 90000 overflows float16 at step 0 on rank 0 (naive'"'"'s order gives nan, the double-precision reference 0)'"$DBT"'0"}' -- run -a naive -n 3 --dtype float16 --op prod --data "300;300;0" --json
expect 0 "$OD"'65504 + 65504 = 131008 overflows float16 at step 0 on rank 1 (ring'"'"'s order gives inf, the double-precision reference 65504)'"$DBT"'65504"}' -- run -n 3 --dtype float16 --data "65504;65504;-65504" --json
expect 0 "$OD"'1e+30 × 1e+30 = 1.00051e+60 overflows bfloat16 at step 0 on rank 1 (ring'"'"'s order gives nan, the double-precision reference 0)'"$DBT"'0"}' -- run -n 3 --dtype bfloat16 --op prod --data "1e30;1e30;0" --json
expect 0 "$OD"'3e+38 + 3e+38 = 6e+38 overflows float32 at step 0 on rank 1 (ring'"'"'s order gives inf, the double-precision reference 3e+38)'"$DBT"'3e+38"}' -- run -n 3 --dtype float32 --data "3e38;3e38;-3e38" --json
expect 0 "order-dependent: rank 0, element 0: 300 × 300 = 90000 overflows float16 at step 1 on rank 0 (naive's order gives nan, the double-precision reference 0); tree's order gives 0" -- run -a naive -n 4 --dtype float16 --op prod --data "300;1;300;0"
expect 0 '"ok": true, "identical_ranks": true, "differing_ranks": [], "order_dependent": false' -- run -a ring -n 3 --dtype float16 --data "-65504;65504;65504" --json
# a float16 average cannot overflow when the mean fits, on every algorithm
# (ok needs an infinity to meet an infinity; the reference is finite)
for alg in naive ring tree recursive_doubling halving_doubling; do
  expect 0 '"ok": true' -- run -n 7 -a $alg --dtype float16 --op avg --data "65504;65504;65504;65504;65504;65504;65504" --json
done
expect 0 '"outputs": [[65504], [65504], [65504]]' -- run -n 3 --dtype float16 --op avg --data "65504;65504;65504" --json
# products are held to the product's error bound
for alg in tree halving_doubling recursive_doubling; do
  expect 0 "ok: matches the reference" -- run -n 5 -a $alg --dtype float16 --op prod --data "-2.25;0.5;-2.25;0.001;0.001"
done
# values are parsed as typed: integers exactly, the sign of zero kept
expect 0 '"outputs": [[9007199254740993]]' -- run -n 1 --dtype int64 --data "9007199254740993.0" --json
expect 0 '"outputs": [[9223372036854775807]]' -- run -n 1 --dtype int64 --data "9223372036854775807.0" --json
expect 0 '"outputs": [[-0]]' -- run -n 1 --dtype float32 --data "-0" --json
expect 0 '"outputs": [[-0]]' -- run -n 1 --dtype float16 --data "-0" --json
expect 2 "error: rank 0 value 0: '1.5' is not an integer (int64 holds integers)" -- run -n 1 --dtype int64 --data "1.5"
expect 2 "error: rank 0 value 0: '1e400' is too large for any dtype" -- run -n 1 --data "1e400"
expect 2 "error: rank 0 value 0: '9223372036854775808' does not fit int64" -- run -n 1 --dtype int64 --data "9223372036854775808"
# counts: unset is unset, every value is checked as typed, sums cannot overflow
expect 2 "error: --count '-1' must be >= 0" -- run --count -1
expect 2 "error: --count '-2' must be >= 0" -- run --count -2
expect 2 "error: --count '9223372036854775808' is too large (at most 9223372036854775807)" -- run --count 9223372036854775808
expect 2 "error: --counts '9223372036854775807,1,1': the counts add up to more than 9223372036854775807" -- run -c all_gather --counts 9223372036854775807,1,1
expect 2 "error: --counts '1,2,3,': entry 4 is empty" -- run -c all_gather --counts 1,2,3,
expect 2 "error: --counts entry '-1' must be >= 0" -- run -c all_gather --counts 1,-1,3
expect 2 "error: --fill random:SEED needs a non-negative integer seed below 2^64, got '-1'" -- run --fill random:-1
# every output file is checked: open, write, flush, close; an empty path is refused
expect 2 "error: cannot write trace file '/dev/full'" -- run --trace /dev/full
expect 2 "error: cannot write record file '/dev/full'" -- run --save-record /dev/full
expect 2 "error: --trace '' is empty: give a file path" -- run --trace ""
expect 2 "error: --save-record '' is empty: give a file path" -- run --save-record ""
# memory: one budget, checked before allocating
expect 2 "error: input file '/dev/zero' is larger than" -- run --input /dev/zero
expect 2 "more than half of this machine's memory" -- bench -b 64G -e 64G
# lessons, interactively (stdin piped): a question comes before its answer.
# Lesson 02 beat 2 shows the inputs, asks, and prints step 0 (with accum
# [8, 10, 12]) only after the answer; empty lines re-ask instead of counting
# as wrong, and so does a choice that does not exist. Input: Enter after
# beat 1; two stray Enters, a 7 (of 4 choices), then 3; Enter; Enter; a
# wrong 20 for beat 4; Enter; 2 for beat 5; Enter.
LESSONS_DIR="$(cd "$(dirname "$0")/../../lessons" && pwd)"
out=$(printf '\n\n\n7\n3\n\n\n20\n\n2\n\n' | "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" 2>&1); rc=$?
beat2=$(awk '/── beat 2\/6/{on=1} /── beat 3\/6/{on=0} on' <<<"$out")
q=$(grep -n "^? What does R0's accum hold after step 0?" <<<"$beat2" | cut -d: -f1)
s0=$(grep -n "^step 0 (1st of 2)" <<<"$beat2" | cut -d: -f1)
acc=$(grep -n "accum \[8, 10, 12\]" <<<"$beat2" | head -1 | cut -d: -f1)
if [ "$rc" -ne 0 ] || [ -z "$q" ] || [ -z "$s0" ] || [ -z "$acc" ] || [ "$q" -ge "$s0" ] || [ "$q" -ge "$acc" ] \
   || [ "$(grep -c '(nothing typed; type your answer)' <<<"$beat2")" -ne 2 ] || ! grep -q "^your choice> right.$" <<<"$beat2" \
   || ! grep -qF "(7 is not one of the choices 1-4; type your answer)" <<<"$beat2" \
   || ! grep -qF "not quite: the answer is 24" <<<"$out" || ! grep -qF "21 checks passed, 0 failed · 2 of 3 questions right" <<<"$out"; then
  echo "FAIL: lesson 02 interactive (question line $q, step 0 at $s0, accum at $acc, rc $rc):"; echo "$beat2" | head -40
  fail=$((fail + 1)); else passed=$((passed + 1)); fi
# --non-interactive keeps the reference order: the step, then the question with its answer
out=$("$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1)
beat2=$(awk '/── beat 2\/6/{on=1} /── beat 3\/6/{on=0} on' <<<"$out")
q=$(grep -n "^? What does R0's accum hold" <<<"$beat2" | cut -d: -f1); s0=$(grep -n "^step 0 (1st of 2)" <<<"$beat2" | cut -d: -f1)
if [ -z "$q" ] || [ -z "$s0" ] || [ "$s0" -ge "$q" ] || ! grep -qF "answer: 3) [8, 10, 12]" <<<"$beat2"; then
  echo "FAIL: lesson 02 --non-interactive order"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# lessons time each step as `run --steps` does: the median of warm repetitions,
# the cold first run apart, and the prediction from this machine's profile
LX=$(mktemp -d /tmp/microddp-lesson-prof.XXXXXX); mkdir -p "$LX/microddp"
echo '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2, "barrier_s_by_ranks": [5e-7, 2e-6]}' > "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
n=$(grep -cE '^step [01] \((1st|2nd) of 2\) · phase ring · [0-9.]+ µs median \(p10 [0-9.]+ µs, p90 [0-9.]+ µs, [0-9]+ reps, barrier included; first run [0-9.]+ µs\) · predicted 3\.0 µs \(error [+-][0-9.]+%\)$' <<<"$out")
if [ $rc -ne 0 ] || [ "$n" -lt 2 ] || grep -q "(one run" <<<"$out"; then
  echo "FAIL: lesson 02 step times (rc $rc, $n warm step lines)"; grep "^step" <<<"$out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a beat that stays at the step the last one showed (beat 3 at step 1, beat 4 at the end of the same 2-step run)
# says so in a line and does not print the step again
if [ "$(grep -c '^step 1 (2nd of 2) · ' <<<"$out")" != 2 ] || ! grep -qx "(the state after step 1 · 2 of 2 steps run, as above)" <<<"$out"; then
  echo "FAIL: lesson 02 reprints step 1 in beat 4"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a broken profile costs the lesson its predictions (one line says why), not the lesson
echo '{"alpha_s": "x"}' > "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qx "no predicted step times: profile '$LX/microddp/profile.json' lacks numeric alpha_s and beta_s_per_byte" <<<"$out" || grep -q "predicted [0-9]" <<<"$out"; then
  echo "FAIL: lesson 02 with a broken profile (rc $rc)"; head -3 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# a FIFO or a directory where the profile should be: refused by what it is, at once (a FIFO used to block the read)
rm -f "$LX/microddp/profile.json"; mkfifo "$LX/microddp/profile.json"
out=$(XDG_CONFIG_HOME="$LX" timeout 20 "$BIN" lesson "$LESSONS_DIR/02-ring-double-buffering.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qx "no predicted step times: profile '$LX/microddp/profile.json' is a FIFO, not a profile file (run \`microddp calibrate\` to write one)" <<<"$out"; then
  echo "FAIL: lesson 02 with a FIFO as profile (rc $rc)"; head -3 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$LX/microddp/profile.json"; mkdir "$LX/microddp/profile.json"
expect 2 "error: profile '$LX/microddp/profile.json' is a directory, not a profile file" -- run -c all_reduce -n 2 --count 4 --profile "$LX/microddp/profile.json"
rm -rf "$LX"
# the lessons print a screenful per beat, not megabytes: lesson 03 (1 MiB per rank at the end) and 09 (lab beats off: cluster.lesson runs them)
for l in 03-naive-tree-ring 09-topology; do
  n=$(MICRODDP_LESSON_NO_LAB=1 "$BIN" lesson "$LESSONS_DIR/$l.yaml" --non-interactive | wc -lc)
  read -r lines bytes <<<"$n"
  if [ "$lines" -gt 500 ] || [ "$bytes" -gt 60000 ]; then
    echo "FAIL: lesson $l printed $lines lines, $bytes bytes"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
# lesson 09 without the lab: each of its 4 lab beats says so, its 3 lab checks are skipped, the lesson passes
out=$(MICRODDP_LESSON_NO_LAB=1 "$BIN" lesson "$LESSONS_DIR/09-topology.yaml" --non-interactive 2>&1); rc=$?
if [ $rc -ne 0 ] ||
   [ "$(grep -cx 'lab beat skipped: MICRODDP_LESSON_NO_LAB is set; its checks are skipped, the model-only beats stand' <<<"$out")" != 4 ] ||
   [ "$(grep -c '^  – measured .*: skipped: MICRODDP_LESSON_NO_LAB is set$' <<<"$out")" != 3 ] ||
   ! grep -qx '36 checks passed, 0 failed, 3 skipped (no cluster lab here)' <<<"$out"; then
  echo "FAIL: lesson 09 with MICRODDP_LESSON_NO_LAB=1 (rc $rc):"; tail -5 <<<"$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# the hang lab: every rank stuck is a hang; its size and memory are capped
expect 1 "verdict: watchdog: no rank made progress for 0.4 s; ranks 0, 1, 2, 3 are stuck outside any collective" -- hang-lab --fault sleep --rank 0,1,2,3 --timeout 0.2
# hang-lab without --rank faults the last rank, valid on any world size; a
# --rank given out of range is still refused
expect 0 "hang lab: 2 ranks, fault none on rank(s) 1, monitored barrier timeout 2 s" -- hang-lab --ranks 2
expect 1 "hang lab: 3 ranks, fault sleep on rank(s) 2, monitored barrier timeout 0.2 s" -- hang-lab --ranks 3 --fault sleep --timeout 0.2
expect 2 "error: rank 2 is out of range for 2 ranks" -- hang-lab --ranks 2 --rank 2
expect 0 "--rank TEXT                 faulty rank, or a list such as 1,3 (default: the last rank, ranks - 1)" -- hang-lab --help
expect 2 "error: --ranks 1000 is more than this tool runs (at most 256)" -- hang-lab -n 1000
expect 2 "error: --count 3000000000 on 4 ranks needs" -- hang-lab --count 3000000000
# ddp: a NaN never passes; the learning rate is a positive finite number
expect 2 "error: lr inf: must be a positive finite number" -- ddp --lr inf
expect 2 "error: lr nan: must be a positive finite number" -- ddp --lr nan
expect 1 "max rel. error inf (MISMATCH, tolerance 0.001)" -- ddp --lr 1e30 --iterations 2 --width 16 --depth 2 --batch 8
# ddp: a run whose sleeps alone pass 30 s says so on stderr before it starts
# (stopped after 2 s here); a short one prints nothing there
# --link-us-per-mb, as lesson 07's overlap beats: every call sleeps at least its bytes' share (16640 B x 0.1 s/MB = 1.587 ms)
out=$("$BIN" ddp --ranks 2 --depth 1 --width 64 --batch 8 --iterations 2 --link-us-per-mb 100000 --json 2>&1); rc=$?
if [ $rc -ne 0 ] || ! python3 -c "
import json, sys
j = json.loads(sys.argv[1])
assert j['bucket_bytes'] == [16640], j['bucket_bytes']
assert all(i['comm_ms'] >= 16640 / 2**20 * 100 for i in j['per_iteration']), j['per_iteration']
" "$out"; then echo "FAIL: ddp --link-us-per-mb 100000 (rc $rc): $out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 2 "error: link delay -1 us per MB: must be in 0..1000000" -- ddp --link-us-per-mb -1
err=$(timeout 10 "$BIN" ddp --iterations 100 --layer-delay-us 100000 --width 16 --batch 8 2>&1 >/dev/null); rc=$?
if [ $rc -ne 124 ] || [ "$err" != "warning: this run takes at least 80 s (its sleeps alone: --iterations 100 × 2 passes × --depth 4 × --layer-delay-us 100000 = 80 s); lower --iterations, --depth or --layer-delay-us for a shorter one" ]; then
  echo "FAIL: ddp --iterations 100 --layer-delay-us 100000 -> exit $rc, stderr: $err"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
err=$("$BIN" ddp --iterations 2 --layer-delay-us 1000 --width 16 --depth 2 --batch 8 2>&1 >/dev/null)
if [ -n "$err" ]; then echo "FAIL: a short ddp run printed on stderr: $err"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# one rank cap and one memory budget for every command (core/ir/limits.h)
expect 2 "error: --ranks 4096 is more than this tool runs (at most 256)" -- predict -n 4096 --preset nvlink
expect 2 "error: a schedule of 256 ranks in 4096 segments needs" -- predict -n 256 -a ring --segments 4096 --preset nvlink
# Published nccl-tests tables (tests/data/nccl-tests, SOURCES.md): fit one, predict --against another of the
# same system class, bench --against, and broken or mismatched tables (exit 2, the file and line named).
NT="$(cd "$(dirname "$0")/../data/nccl-tests" && pwd)"
FITD=$(mktemp -d /tmp/microddp-cli-fit.XXXXXX)
expect 0 "fit: an α-β model (one link class: every message costs α + m·β) through microddp's ring all_reduce schedule on 16 ranks on 2 nodes of NVIDIA H100 80GB HBM3
  not NCCL's tuning model (protocols, channels, NVLS): α and β are effective values for this table
  source: $NT/h100-2x8-ib-allreduce.txt (all_reduce_perf, NCCL 2.26.2+cuda12.8)
  α = 0.965 us per message (the floor: 30 messages on the critical path; from the out-of-place rows of 10 sizes, 8 B .. 4 KiB (4096 B))
  bandwidth = 465.03 GB/s (β = 2.15e-12 s/B; from the out-of-place rows of 6 sizes, 512 MiB (536870912 B) .. 16 GiB (17179869184 B))
  residuals on $NT/h100-2x8-ib-allreduce.txt: median |error| 14.6% over 32 rows
    <= 4 KiB          10 rows  median |error|   13.7%" -- fit --model alpha-beta "$NT/h100-2x8-ib-allreduce.txt" --out "$FITD/h100.json"
if grep -qF "\"source\": [" "$FITD/h100.json" && grep -qF '"model": "alpha-beta"' "$FITD/h100.json" && grep -qF '"ranks_per_node": 8' "$FITD/h100.json"; then
  passed=$((passed + 1)); else echo "FAIL: fit's profile lacks source, fit or topology: $(cat "$FITD/h100.json")"; fail=$((fail + 1)); fi
expect 0 "published: $NT/h100-2x8-b-allreduce.txt (all_reduce from --collective, 16 ranks on 2 nodes of NVIDIA H100 80GB HBM3), out-of-place columns" -- predict --profile "$FITD/h100.json" --against "$NT/h100-2x8-b-allreduce.txt" -c all_reduce
expect 0 "       1048576           93.25           33.19    -64.4%            21.08            59.23" -- predict --profile "$FITD/h100.json" --against "$NT/h100-2x8-b-allreduce.txt" -c all_reduce
expect 0 "median |error|: 30.6% over 14 rows (4 KiB..1 MiB: 64.4% (1 row); 1 MiB..512 MiB: 46.2% (8 rows); >= 512 MiB: 0.9% (5 rows))" -- predict --profile "$FITD/h100.json" --against "$NT/h100-2x8-b-allreduce.txt" -c all_reduce
# the fitted table itself gives back the fit's residuals
expect 0 "median |error|: 14.6% over 32 rows (<= 4 KiB: 13.7% (10 rows)" -- predict --profile "$FITD/h100.json" --against "$NT/h100-2x8-ib-allreduce.txt"
expect 0 '"summary": true, "collective": "all_reduce", "ranks": 16, "nodes": 2, "gpu": "NVIDIA H100 80GB HBM3", "nccl_version": null' -- predict --profile "$FITD/h100.json" --against "$NT/h100-2x8-b-allreduce.txt" -c all_reduce --json
expect 0 '{"against": "'"$NT"'/a100-1x8-allreduce.txt", "bytes": 64, "published_us": 32.01, ' -- predict --preset nvlink --against "$NT/a100-1x8-allreduce.txt" --json
expect 0 '"rows": 28, "median_abs_error_pct": ' -- predict --preset nvlink --against "$NT/a100-1x8-allreduce.txt" --json
expect 0 '{"median_abs_error_pct":0.88' -- fit --model alpha-beta "$NT/h100-2x8-ib-allreduce.txt" --out "$FITD/h100b.json" --json
# fit's default model: the NCCL-shaped tuner on the named system of the table's GPU, launch and bus-bandwidth scale fitted;
# predict --profile on a table it was not fitted to prices with the tuner (issue 36's targets: tests/core/model/test_nccl_system_fit.cpp)
expect 0 "fit: the NCCL-shaped tuner (NCCL 2.30.7 tuning.cc constants) on dgx-h100, 2 nodes x 8 GPUs, for 16 ranks on 2 nodes of NVIDIA H100 80GB HBM3 (all_reduce)
  source: $NT/h100-2x8-ib-allreduce.txt (all_reduce_perf, NCCL 2.26.2+cuda12.8)
  launch = 3.676 us per call (median of published - tuner over the out-of-place rows of 10 sizes, 8 B .. 4 KiB (4096 B))
  bus bandwidth x 1.0111 (every candidate's; from the out-of-place rows of 6 sizes, 512 MiB (536870912 B) .. 16 GiB (17179869184 B))" -- fit "$NT/h100-2x8-ib-allreduce.txt" --out "$FITD/tuner.json"
expect 0 "median |error|: 19.2% over 14 rows (4 KiB..1 MiB: 31.4% (1 row); 1 MiB..512 MiB: 23.3% (8 rows); >= 512 MiB: 0.8% (5 rows))" -- predict --profile "$FITD/tuner.json" --against "$NT/h100-2x8-b-allreduce.txt" -c all_reduce
expect 0 "fitted: launch 3.676 us per call and bus bandwidth x 1.0111 (fitted to $NT/h100-2x8-ib-allreduce.txt)" -- predict --profile "$FITD/tuner.json" --bytes 1M
expect 2 "error: --profile $FITD/tuner.json (a fit of the NCCL-shaped tuner) takes its model from the system: leave out --preset" -- predict --profile "$FITD/tuner.json" --preset nvlink --bytes 1M
expect 2 "error: fit: --algorithm is the α-β model's schedule: give --model alpha-beta with it (the tuner chooses NCCL's algorithm per size)" -- fit "$NT/h100-2x8-ib-allreduce.txt" -a tree --out "$FITD/x.json"
expect 2 "error: profile '$FITD/tuner.json' is a fit of the NCCL-shaped tuner to published tables (microddp fit): only predict --profile reads it; this command needs a calibrated profile (microddp calibrate, or fit --model alpha-beta)" -- bench --profile "$FITD/tuner.json" -n 2 -b 1K -e 1K
expect 2 "error: fit: --model abc is not a model (tuner | alpha-beta)" -- fit "$NT/h100-2x8-ib-allreduce.txt" --model abc --out "$FITD/x.json"
expect 2 "error: unknown NCCL system 'dgx-x'" -- fit "$NT/h100-2x8-ib-allreduce.txt" --nccl-system dgx-x --out "$FITD/x.json"
expect 2 "matches no named NCCL system: give --nccl-system NAME" -- fit "$NT/gh200-2x4-allreduce.txt" --out "$FITD/x.json"
expect 2 "error: fit: --out PROFILE is missing (the profile file to write)" -- fit "$NT/h100-2x8-ib-allreduce.txt"
expect 2 "error: fit: --out $XDG_CONFIG_HOME/microddp/profile.json is this machine's default profile (run, bench and the window read it): a fit describes the published system; give another file" -- fit "$NT/h100-2x8-ib-allreduce.txt" --out "$XDG_CONFIG_HOME/microddp/profile.json"
expect 2 "error: $NT/h100-2x8-b-allreduce.txt: the file does not name its tool (expected a line with e.g. all_reduce_perf): give --collective" -- fit "$NT/h100-2x8-b-allreduce.txt" --out "$FITD/x.json"
expect 2 "error: $NT/h200-2x8-allreduce.txt: no row of at most 4096 B: α (the small-message floor) cannot be fitted from it (run the tool from -b 8)" -- fit --model alpha-beta "$NT/h200-2x8-allreduce.txt" --out "$FITD/x.json"
expect 0 "  launch = 0 us per call (not fitted: no row of 4096 B or less)" -- fit "$NT/h200-2x8-allreduce.txt" --out "$FITD/x.json"
expect 2 "are not one system: fit one system per profile" -- fit "$NT/h100-2x8-ib-allreduce.txt" "$NT/a100-2x8-allreduce.txt" --out "$FITD/x.json"
expect 2 "error: --ranks 4 but $NT/h100-2x8-ib-allreduce.txt has 16 ranks (16 ranks on 2 nodes of NVIDIA H100 80GB HBM3): leave --ranks out or give 16" -- predict --preset nvlink -n 4 --against "$NT/h100-2x8-ib-allreduce.txt"
expect 2 "error: $NT/a100-1x8-sendrecv.txt: sendrecv has no collective in microddp's model to compare with" -- predict --preset nvlink --against "$NT/a100-1x8-sendrecv.txt"
expect 2 "error: $NT/h100-8x8-allreduce.txt: the file does not name its tool (no line with e.g. all_reduce_perf) and its columns do not tell: give --collective" -- predict --preset nvlink --against "$NT/h100-8x8-allreduce.txt"
expect 2 "error: $NT/a100-1x8-allreduce.txt: --collective all_gather contradicts the file, which names all_reduce_perf" -- predict --preset nvlink -c all_gather --against "$NT/a100-1x8-allreduce.txt"
expect 2 "error: $FITD/none.txt: no such file (expected the saved output of an nccl-tests *_perf tool)" -- predict --preset nvlink --against "$FITD/none.txt"
head -20 "$NT/gh200-2x4-allreduce.txt" > "$FITD/trunc.txt"; echo "        1024           256     float     sum      -1    20.35    0.05" >> "$FITD/trunc.txt"
expect 2 "error: $FITD/trunc.txt:21: the row has 7 fields (expected 13 fields as the header at line 15 says: size count type redop root, then time algbw busbw #wrong for out-of-place and for in-place): a truncated row?" -- predict --preset nvlink --against "$FITD/trunc.txt"
sed 's/   17.93 /   17,93 /' "$NT/gh200-2x4-allreduce.txt" > "$FITD/comma.txt"
expect 2 "error: $FITD/comma.txt:17: out-of-place time (us) is '17,93' (expected a number or N/A)" -- fit "$FITD/comma.txt" --out "$FITD/x.json"
: > "$FITD/empty.txt"
expect 2 "error: $FITD/empty.txt: the file is empty (expected the output of an nccl-tests *_perf tool)" -- bench --ranks 8 --preset nvlink --against "$FITD/empty.txt"
tail -n +14 "$NT/gh200-2x4-allreduce.txt" | tail -n +4 > "$FITD/headless.txt"
expect 2 "error: $FITD/headless.txt:1: a data row before any column header" -- predict --preset nvlink --against "$FITD/headless.txt" -n 8 -c all_reduce
expect 2 "error: --ranks 2 but $NT/a100-1x8-allreduce.txt has 8 ranks" -- bench --ranks 2 --preset nvlink --against "$NT/a100-1x8-allreduce.txt"
expect 0 "against published: $NT/a100-1x8-allreduce.txt (all_reduce_perf, 8 ranks on 1 node of NVIDIA A100-SXM4-40GB), out-of-place columns" -- bench --ranks 8 -b 1M -e 1M --passes 1 -n 2 -w 1 --preset nvlink --against "$NT/a100-1x8-allreduce.txt"
expect 0 '"against": "'"$NT"'/a100-1x8-allreduce.txt", "bytes": 1048576, "algorithm": "ring", "measured_us": ' -- bench --ranks 8 -b 1M -e 1M --passes 1 -n 2 -w 1 --preset nvlink --against "$NT/a100-1x8-allreduce.txt" --json
expect 0 "no bench size is a published size (published 64 B .. 8 GiB (8589934592 B))" -- bench --ranks 8 -b 3000 -e 3000 --passes 1 -n 1 -w 0 --preset nvlink --against "$NT/a100-1x8-allreduce.txt"
# predict --against: options it would not use are refused by name (exit 2); rows nccl-tests flags wrong are left out
AGAINST_UNUSED="prices the file's rows at their sizes and element type, in one table of its own: leave out"
expect 2 "error: --against FILE $AGAINST_UNUSED --bytes (it would not be used)" -- predict --preset nvlink --against "$NT/a100-1x8-allreduce.txt" --bytes 1M
expect 2 "error: --against FILE $AGAINST_UNUSED --table (it would not be used)" -- predict --topology dgx-h100 -a auto --against "$NT/h100-2x8-ib-allreduce.txt" --table
expect 2 "error: --against FILE $AGAINST_UNUSED --dtype (it would not be used)" -- predict --nccl-system dgx-h100 --against "$NT/h100-2x8-ib-allreduce.txt" --dtype float16
expect 2 "error: --against FILE $AGAINST_UNUSED --protocol (it would not be used)" -- predict --preset nvlink --protocol ll --against "$NT/a100-1x8-allreduce.txt"
expect 2 "error: --against FILE $AGAINST_UNUSED --stepfactor (it would not be used)" -- predict --preset nvlink -f 4 --against "$NT/a100-1x8-allreduce.txt"
expect 2 "error: --against FILE on the NCCL-shaped tuner: the tuner prices no root (the same time at every root): leave out --root" -- predict --nccl-system dgx-h100 --against "$NT/h100-2x8-ib-allreduce.txt" --root 1
sed 's/   11.17      0 /   11.17      5 /' "$NT/gh200-2x4-allreduce.txt" > "$FITD/wrong.txt"
expect 0 "median |error|: 43.0% over 24 rows (<= 4 KiB: 8.3% (10 rows); 4 KiB..1 MiB: 57.4% (7 rows); 1 MiB..512 MiB: 64.2% (7 rows))
$FITD/wrong.txt: left out 1 row nccl-tests flags wrong (out-of-place #wrong above 0) from the error medians: 1 MiB (1048576 B)" -- predict --nccl-system dgx-h100 --against "$FITD/wrong.txt"
expect 0 '"rows": 24, "median_abs_error_pct": 43.0' -- predict --nccl-system dgx-h100 --against "$FITD/wrong.txt" --json
expect 0 '"wrong_rows_left_out": [1048576]}' -- predict --nccl-system dgx-h100 --against "$FITD/wrong.txt" --json
expect 0 "  $FITD/wrong.txt: left out 1 row nccl-tests flags wrong (out-of-place #wrong above 0) from the fit and its residuals: 1 MiB (1048576 B)" -- fit --model alpha-beta "$FITD/wrong.txt" --out "$FITD/w.json"
rm -rf "$FITD"
expect 2 "error: a schedule of 256 ranks in 4096 segments needs" -- run -n 256 --segments 4096
expect 2 "error: calibrate --max 107374182400 (a ping-pong of 68719476736 B) needs" -- calibrate --min 1G --max 100G --out /tmp/microddp-cli-unwritten.json
expect 2 "error: ddp with 64 ranks, depth 256, width 4096, batch 64 needs" -- ddp --ranks 64 --depth 256 --width 4096
# lessons by bare name, as the README writes them, from any directory: the
# name, the name + .yaml, in the shipped lessons; a name matching nothing is
# exit 2 naming it and the lessons there
for name in 02-ring-double-buffering 02-ring-double-buffering.yaml; do
  for dir in /tmp "$(dirname "$0")/../.."; do
    out=$(cd "$dir" && "$BIN" lesson "$name" --non-interactive 2>&1); rc=$?
    if [ $rc -ne 0 ] || ! grep -qF "checks passed, 0 failed" <<<"$out"; then
      echo "FAIL: (cd $dir && microddp lesson $name) -> exit $rc:"; tail -3 <<<"$out"; fail=$((fail + 1))
    else passed=$((passed + 1)); fi
  done
done
out=$(cd /tmp && "$BIN" lesson no-such-lesson --non-interactive 2>&1); rc=$?
if [ $rc -ne 2 ] || ! grep -qE "^error: lesson 'no-such-lesson' not found in .*/lessons; the lessons: 01-[a-z-]+, 02-ring-double-buffering, 03-" <<<"$out"; then
  echo "FAIL: microddp lesson no-such-lesson -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# lessons: a directory and a repeated key are named as such
expect 2 "error: /tmp is a directory, not a lesson file" -- lesson /tmp --non-interactive
# a FIFO or a device: refused by what it is, at once (opening a FIFO for
# reading would wait for a writer forever; timeout turns a hang into a FAIL)
FIFO_DIR=$(mktemp -d /tmp/microddp-cli-fifo.XXXXXX); mkfifo "$FIFO_DIR/l.yaml"
for f in "$FIFO_DIR/l.yaml:a FIFO (named pipe)" "/dev/zero:a character device"; do
  out=$(timeout 10 "$BIN" lesson "${f%%:*}" --non-interactive 2>&1); rc=$?
  if [ $rc -ne 2 ] || [ "$out" != "error: ${f%%:*} is ${f#*:}, not a lesson file (lessons are YAML files such as lessons/01-primitives.yaml; \`microddp lesson --list\` lists them)" ]; then
    echo "FAIL: lesson ${f%%:*} -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
done
rm -rf "$FIFO_DIR"
# a path that is not there: the system's reason, and no file:line:col (there is no text to point into)
out=$("$BIN" lesson /tmp/microddp-no-such-lesson.yaml --non-interactive 2>&1); rc=$?
if [ $rc -ne 2 ] || [ "$out" != "error: cannot open /tmp/microddp-no-such-lesson.yaml: No such file or directory" ]; then
  echo "FAIL: lesson /tmp/microddp-no-such-lesson.yaml -> exit $rc: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
out=$("$BIN" lesson /tmp --non-interactive 2>&1)
if grep -q ':0:0' <<<"$out"; then echo "FAIL: lesson /tmp printed a fake position: $out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
DUP=$(mktemp /tmp/microddp-cli-dup.XXXXXX.yaml)
printf 'title: t\nsetup: {collective: all_reduce, ranks: 3}\nbeats:\n  - text: a\n    text: b\n' > "$DUP"
expect 2 "error: $DUP:5:5: duplicate key 'text' in this mapping (first at line 4)" -- lesson "$DUP" --non-interactive
rm -f "$DUP"
# --mpi-algorithm names an algorithm of the call bench makes (equal counts:
# MPI_Reduce_scatter_block, MPI_Allgather): a name only the v-variant has
# would be set on a variable that call never reads. Refused before MPI starts.
if "$BIN" doctor 2>/dev/null | grep -q "mpi:     compiled in"; then
  # the switch endpoint of nvls is a thread of the threads backend: mpi refuses it, saying why
  expect 2 "error: algorithm 'nvls' needs a switch endpoint, which only the threads backend runs (as one more thread); the mpi backend runs ranks only: use --backend threads" -- run -c all_reduce -a nvls -n 2 --count 10 --backend mpi
  expect 2 "error: Open MPI algorithm 'ring' is MPI_Reduce_scatter's (counts that differ per rank), but bench calls MPI_Reduce_scatter_block (equal counts), whose coll_tuned_reduce_scatter_block_algorithm has no 'ring' (expected one of: basic_linear, recursive_doubling, recursive_halving, butterfly)" -- bench --backend mpi --reference mpi --collective reduce_scatter --mpi-algorithm ring
  expect 2 "error: Open MPI algorithm 'default' is MPI_Allgatherv's" -- bench --backend mpi --reference mpi --collective all_gather --mpi-algorithm default
  expect 2 "error: unknown Open MPI algorithm 'bogus' for all_reduce (expected one of: basic_linear, nonoverlapping, recursive_doubling, ring, segmented_ring, rabenseifner)" -- bench --backend mpi --reference mpi --mpi-algorithm bogus
  # two_proc runs on 2 ranks only (Open MPI aborts the job on 3; mpi_launch_test.sh
  # early_exit runs that job); outside mpirun the singleton job has 1
  expect 2 "error: Open MPI algorithm 'two_proc' (coll_tuned_allgather_algorithm 6) runs on exactly 2 ranks, not on 1: coll/self serves a 1-rank call, so two_proc would never run; run it under mpirun -n 2, or force another all_gather algorithm: linear, bruck, recursive_doubling, ring, neighbor" -- bench --backend mpi --reference mpi --collective all_gather --mpi-algorithm two_proc
fi
# calibrate --quick: a few seconds, the default profile marked quick; then
# run predicts with it and prints no hint.
expect 2 "--quick runs its own sweep on the threads backend: drop --min, --max" -- calibrate --quick --max 4K
expect 2 "--quick runs its own sweep on the threads backend: drop --backend mpi, --min" -- calibrate --quick --backend mpi
# a profile path that cannot be written is refused before anything is measured
expect 2 "error: --out is empty: give the profile a file name" -- calibrate --quick --out ""
expect 2 "error: --out '/tmp' is a directory" -- calibrate --quick --out /tmp
expect 2 "error: --out '/proc/microddp-nope/p.json': cannot create the folder '/proc/microddp-nope'" -- calibrate --quick --out /proc/microddp-nope/p.json
expect 2 "error: --nodes and --ranks-per-node need --backend mpi" -- calibrate --quick --nodes 0
out=$("$BIN" calibrate --quick 2>&1); rc=$?
prof="$XDG_CONFIG_HOME/microddp/profile.json"
if [ $rc -ne 0 ] || ! grep -qF "wrote $prof (marked quick" <<<"$out" || ! grep -qF "ping-pong   1048576 B" <<<"$out" ||
   grep -qF "ping-pong         8 B" <<<"$out" || ! grep -qF '"quick": true' "$prof"; then
  echo "FAIL: calibrate --quick -> rc $rc:"; echo "$out" | tail -5; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# its headline says what its α and bandwidth rest on and what the quick sweep did not measure, in the full run's words
head=$(grep -A1 '^profile (quick): α = [0-9.]* us, bandwidth = ' <<<"$out" | tail -1)
re='^  \(quick: (α and bandwidth are|α is the small msgs line.s \(the large one is bandwidth only\), bandwidth is) the (large msgs|one) line above, fitted on ([0-9]+) sizes, ([0-9]+) B \.\. 1048576 B, x4 apart, 1 round; (below ([0-9]+) B the profile uses the small msgs line, α = [0-9.]+ us; )?not measured: sizes above 1048576 B \(the full calibrate fits up to 67108864 B, x2 apart, 9 rounds\), the cache curve, the machine-state probe.s 32 KiB reference\)$'
if ! [[ "$head" =~ $re ]]; then
  echo "FAIL: calibrate --quick headline note: $head"; fail=$((fail + 1))
else
  # the sizes it names are the ping-pong sizes from the line's first one; a break starts the large msgs line
  # (a large msgs line fitted through zero lends the headline the small line's α, and the note says so)
  from=${BASH_REMATCH[4]}
  sizes=$(grep -oE '^  ping-pong +[0-9]+ B' <<<"$out" | awk -v f="$from" '$2 >= f' | wc -l)
  brk=$(grep -oE '^one line does not fit \(max residual above 15%\): split at [0-9]+ B' <<<"$out" | grep -oE '[0-9]+ B$' | grep -oE '[0-9]+')
  borrowed=no; [ -n "$brk" ] && grep -qE '^large msgs : bandwidth only' <<<"$out" && borrowed=yes
  said=no; [[ "${BASH_REMATCH[1]}" == α\ is* ]] && said=yes
  if [ "$sizes" -ne "${BASH_REMATCH[3]}" ] || [ "$borrowed" != "$said" ] ||
     { [ -n "$brk" ] && { [ "${BASH_REMATCH[2]}" != "large msgs" ] || [ "$from" != "$brk" ] || [ "${BASH_REMATCH[6]}" != "$brk" ]; }; } ||
     { [ -z "$brk" ] && { [ "${BASH_REMATCH[2]}" != "one" ] || [ "$from" != 4 ]; }; }; then
    echo "FAIL: calibrate --quick headline note ($sizes sizes from $from B, break '$brk'): $head"; fail=$((fail + 1))
  else passed=$((passed + 1)); fi
fi
# a full (not quick) calibrate whose fit splits names, under its headline, the line that prices the small messages
FULL=$(mktemp /tmp/microddp-cli-profile.XXXXXX.json)
out=$("$BIN" calibrate --no-cache-curve --max 65536 --out "$FULL" 2>&1); rc=$?
brk=$(grep -oE '^one line does not fit \(max residual above 15%\): split at [0-9]+ B' <<<"$out" | grep -oE '[0-9]+ B$' | grep -oE '[0-9]+')
note=$(grep -A1 '^profile: α = ' <<<"$out" | tail -1)
if [ -n "$brk" ]; then
  small=$(grep -oE '^small msgs : α = [0-9.]+ us, bandwidth = [0-9.]+ GB/s' <<<"$out" | sed 's/^small msgs : //')
  want="  (messages below $brk B: the small msgs line above, $small)"
  if grep -qE '^large msgs : bandwidth only' <<<"$out"; then
    want="  (messages below $brk B: the small msgs line above, $small; the large msgs line is bandwidth only, so the headline's α is the small line's: a message's fixed cost does not shrink with its size)"
  fi
else
  want=$(grep -m1 -E '^protocol simple: ' <<<"$out")  # no split: no note, the protocol lines follow
fi
if [ $rc -ne 0 ] || [ -z "$want" ] || [ "$note" != "$want" ]; then
  echo "FAIL: calibrate headline note (break '$brk'): got '$note', want '$want'"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# ... and, after the two lines, the caches and where the ping-pong's pool at the split fits (exact text: the unit
# test of split_cache_text), or nothing when this machine reports no cache size
if [ -n "$brk" ]; then
  got=$(grep -A1 '^large msgs : ' <<<"$out" | tail -1)
  if ! grep -qE "^\(this CPU's caches: .*; at the split, [0-9]+ [KM]?i?B messages, the ping-pong rotates [0-9]+ buffer slots?, [0-9]+ [KM]?i?B per rank, which fits in (the L1d|the L2|the L3|none of them): the split is where two lines fit best, not always a cache edge\)$|^(γ |warning: )" <<<"$got"; then
    echo "FAIL: calibrate split cache sentence: got '$got'"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
fi
rm -f "$FULL"
err=$("$BIN" "${SEED[@]}" 2>&1 >/dev/null)
if [ -n "$err" ]; then echo "FAIL: run with a profile printed on stderr: $err"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
if "$BIN" "${SEED[@]}" --json | grep -qF '"predicted_us": null'; then
  echo "FAIL: run with the quick profile predicted nothing"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
