#!/usr/bin/env bash
# microddp ddp and hang-lab as a user types them: warm-up, options, the hang
# lab's verdicts and caps, ddp's NaN, learning rate and link delays.
. "$(dirname "$0")/cli_lib.sh" "$1"
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
expect 0 "bucket cap 0.25 MiB (262144 B): 1 bucket" -- ddp -n 2 --depth 2 --width 8 --batch 4 --iterations 1
expect 0 "stand-ins: none (--layer-delay-us 0 --link-us-per-mb 0): this machine's own compute and thread hand-offs" -- "${TINY[@]}" --layer-delay-us 0 --link-us-per-mb 0
expect 2 "error: --data is empty" -- run -n 3 --data ""
expect 2 "error: --count 5 and --counts 0,3,2 both given" -- run -c gather -a naive -n 3 --count 5 --counts 0,3,2
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
cli_summary
