#!/usr/bin/env bash
# microddp predict as a user types it: links, presets, the cache curve and its
# coherence terms, units, topologies, NVLS, and auto's choice.
. "$(dirname "$0")/cli_lib.sh" "$1"
# the tables' headers line up with their columns on a terminal: α, β, γ are two bytes in UTF-8 but one column
# (issue 37: they were padded by bytes, one column short each); the flat table and the network table
expect 0 "algorithm             steps    α term (ms)    β term (ms)    γ term (ms)  lockstep (ms) pipelined (ms) closed form (ms)
naive                    14         0.0140        23.3333         0.0000        23.3473        23.3473          23.3473" -- predict -a all --preset nvlink
expect 0 "algorithm          steps   α term (s)   β term (s)    total (s)   closed (s)    bytes intra    bytes inter bottleneck port                its bytes     algbw     busbw
naive                 30     0.000046     0.663333     0.663379            -    14000000000    16000000000 both NIC out and in ports     8000000000     1.507     2.826" -- predict -a all -n 16 --nodes 2 --intra nvlink --inter infiniband
# every line of the flat table as wide on screen as its header (code points, not bytes)
out=$("$BIN" predict -a all --preset nvlink 2>&1)
w=$(sed -n 2p <<<"$out" | LC_ALL=C.UTF-8 wc -m); r=$(sed -n 3p <<<"$out" | LC_ALL=C.UTF-8 wc -m)
if [ "$w" != 120 ] || [ "$r" != 120 ]; then
  echo "FAIL: predict -a all table widths: header $w, first row $r characters (wanted 120 each)"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# predict validates its link
expect 2 "error: --alpha nan must be a finite number" -- predict --alpha nan --bandwidth inf
expect 2 "error: --bandwidth 0 must be a finite, positive number" -- predict --alpha 1e-6 --bandwidth 0
expect 0 "23.9x the time on nvlink" -- predict -c all_reduce -a ring --ranks 8 --bytes 1e9 --preset nvlink,infiniband
# a comma list of presets: one block per preset, none silently dropped
out=$("$BIN" predict --algorithm all --preset nvlink,infiniband --ranks 4 --bytes 1M 2>&1)
if [ "$(grep -c '^all_reduce, 4 ranks, 1 MiB (1048576 B); ' <<<"$out")" -ne 2 ] || ! grep -qF "1 MiB (1048576 B); infiniband: α = 2 µs, bandwidth = 25 GB/s" <<<"$out" \
   || ! grep -qE "^ring +6 +12.00 +62.91 +0.00 +74.91 " <<<"$out" || ! grep -qF "α term (µs)" <<<"$out"; then
  echo "FAIL: predict -a all --preset nvlink,infiniband:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
# one row per all_reduce algorithm (11, issue 35 added double_binary_tree, one_shot, two_shot, nvls) and preset;
# infiniband has no reducing switch: nvls left out there (10 rows)
out=$("$BIN" predict --algorithm all --preset nvlink,infiniband --ranks 4 --bytes 1M --json 2>&1)
if [ "$(grep -c '"model": "infiniband"}' <<<"$out")" -ne 10 ] || [ "$(grep -c '"model": "nvlink"}' <<<"$out")" -ne 11 ]; then
  echo "FAIL: predict --json with two presets:"; echo "$out" | head -3; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 0 "auto picks halving_doubling on infiniband" -- predict -a auto --preset nvlink,infiniband --ranks 4 --bytes 1M
# nvls on a flat preset: nvlink's NVSwitch (a port per rank, line-rate reduction), refused on a preset without one
expect 0 "nvls                      2         0.0020         3.5791         0.0000         3.5811         3.5811                -
(nvls on nvlink: an NVSwitch with a port per rank at the preset's α and bandwidth (1 µs, 600 GB/s), reducing at line rate; not the flat model's one-port switch thread, not a measured NVLS figure)" -- predict -a all --preset nvlink -n 8 --bytes 1G
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
expect 0 "crossover: ring overtakes tree between 256 KiB and 512 KiB of the sweep; the model's crossover is 284.1 KiB (290912 B)" -- predict --sweep --preset nvlink
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
if [ "$(tail -3 <<<"$out")" != "  schedule: lockstep 46.32 µs, pipelined 46.32 µs
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
    lockstep 329.68 µs; bench predicts 329.68 µs (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε adds 262.14 µs to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      ε: 262144 B written over bytes a rank on another core read since they were last written
  closed form vs schedule" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# φ at 0.5 ns per byte: rank 1 receives in step 1 the 256 KiB rank 0 wrote in step 0, 131 µs more
sed -i 's/"coherence_s_per_byte": \[1e-9, 1e-9\]}/"coherence_s_per_byte": [1e-9, 1e-9], "fresh_read_s_per_byte": [5e-10, 5e-10]}/' "$CURVE"
expect 0 "; β, γ, δ by step footprint and ε, φ (lines moved between two cores: writes over what a rank on another core read, reads of what one wrote) by reuse distance from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE"
expect 0 "    lockstep 460.75 µs; bench predicts 460.75 µs (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε and φ add 393.22 µs to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
      ε: 262144 B written over bytes a rank on another core read since they were last written
      φ: 262144 B received from a sender on another core that wrote them since
  closed form vs schedule" -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# with a barrier b(2) = 10 µs: two in the lockstep steps, and bench's figure one more for the iteration's close
sed -i 's/"cores": 2,/"cores": 2, "barrier_s_by_ranks": [1e-5],/' "$CURVE"
expect 0 "    lockstep 480.75 µs; bench predicts 490.75 µs (its default lockstep mode closes each iteration with one more barrier b(n))
    of which ε and φ add 393.22 µs to the lockstep time," -- predict -n 2 --bytes 256K -a naive --profile "$CURVE"
# φ only (ε dropped from the profile): the header and the line name φ alone
sed 's/"coherence_s_per_byte": \[1e-9, 1e-9\], //' "$CURVE" > "$CURVE.phi"
expect 0 "; β, γ, δ by step footprint and φ (reads of what a rank on another core wrote) by reuse distance from its cache curve" -- bench -b 4K -e 4K -n 2 -w 1 --passes 1 --profile "$CURVE.phi"
expect 0 "    of which φ adds 131.07 µs to the lockstep time, each byte priced at its reuse distance (the traffic between the two accesses):
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
      (they would add 0.82 µs, but they fall on ranks that are not the slowest of their step)" -- predict -c all_reduce -n 3 --bytes 4K -a tree --profile "$CURVE.tree"
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
# the unit is chosen on the value as printed: 999.9998 µs would read "1000.00 µs"
expect 0 "  total            1.0000 ms   (closed form)" -- predict -n 2 -a ring --bytes 8 --alpha 0.0004999999 --bandwidth 1e15
# without a cache curve (a preset, an older profile) there is nothing to explain: no such line, no such field
out=$("$BIN" predict -n 4 --bytes 256K -a ring --preset nvlink 2>&1; "$BIN" predict -n 4 --bytes 256K -a ring --preset nvlink --json 2>&1)
if grep -q "closed form vs schedule\|closed_form_beta" <<<"$out"; then
  echo "FAIL: predict on a preset explained a cache curve:"; echo "$out"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
expect 2 "error: width 100000: must be in 1..4096" -- ddp --width 100000
# topology: ranks on nodes, two link classes, the hierarchical all-reduce, auto
TOPO=(predict -c all_reduce -a all --ranks 16 --nodes 2 --intra nvlink --inter infiniband --bytes 1e9)
# one time unit per table (s here: naive takes over a second), no 6e-05 beside 0.075
expect 0 "ring                  30     0.000060     0.075000     0.075060" -- "${TOPO[@]}"
expect 0 "hierarchical          16     0.000046     0.042917     0.042963     0.042963    28000000000     2000000000 both NIC out and in ports     1000000000" -- "${TOPO[@]}"
expect 0 '"algorithm": "hierarchical", "collective": "all_reduce", "ranks": 16, "nodes": 2, "nics_per_node": 1, "bytes": 1000000000, "steps": 16' -- "${TOPO[@]}" --json
expect 0 '"bytes_intra": 26250000000, "bytes_inter": 3750000000, "bottleneck": "node 0 NIC 0 out", "bottleneck_bytes": 1875000000' -- "${TOPO[@]}" --json
# "bottleneck" is the first tied port; "bottleneck_text" names them all, as the table does
expect 0 '"bottleneck": "node 0 NIC 0 out", "bottleneck_bytes": 1000000000, "bottleneck_tied": 4, "bottleneck_text": "both NIC out and in ports", ' -- predict -c all_reduce -a hierarchical --ranks 16 --nodes 2 --intra nvlink --inter infiniband --bytes 1e9 --json
# ties to the byte's rounding: integer chunking leaves one NIC 8 B over the others, still "all 3"
expect 0 "ring                  10       0.0200       6.6667       6.6867       6.6867      500000000      500000000 all 3 NIC out and in ports      166666664" -- predict -c all_reduce -a ring --ranks 6 --nodes 3 --intra nvlink --inter infiniband --bytes 1e8
# the bottleneck column padded by display width: the en dash in "nodes 1–6" is one column, not 3 bytes
expect 0 "double_binary_tree     6       0.0200      20.0000      20.0200            -              0     1400000000 NIC out and in of nodes 1–6       200000000" -- predict -c all_reduce -a all --ranks 8 --nodes 8 --intra nvlink --inter infiniband --bytes 1e8
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
expect 0 "ring                  30       0.2100       4.8832       5.0932            -    28185722880     4026531840 all 16 NIC out and in ports      251658240   210.820   395.288" -- predict -a ring --channels 8 --topology dgx-h100 --ranks 16 --bytes 1G
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
# nvls on the dgx-h100: the switch's per-rank ports at the preset's figure, by hand 2·(1 µs + 1e9 B / 450 GB/s);
# with 8 segments the two directions overlap: 9·(1 µs + 1.25e8 B / 450 GB/s) = 2.509 ms, below the ring's 3.903 ms
NVP=(predict -c all_reduce -a nvls --ranks 8 --topology dgx-h100 --bytes 1e9)
expect 0 "nvls                   2       0.0020       4.4444       4.4464       4.4464    16000000000              0 all 8 intra out and in ports and all 8 SW out and in ports     1000000000   224.899   393.573" -- "${NVP[@]}"
expect 0 "reducing switch nvls-nvswitch3 (α = 1 µs, 450 GB/s) per rank port (the switch port's bandwidth is the preset's: the DGX H100's NVLink 4 rate per GPU" -- "${NVP[@]}"
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
cli_summary
