#!/usr/bin/env bash
# Published nccl-tests tables (tests/data/nccl-tests, SOURCES.md): fit one,
# predict --against another, bench --against, broken or mismatched tables.
. "$(dirname "$0")/cli_lib.sh" "$1"
# Published nccl-tests tables (tests/data/nccl-tests, SOURCES.md): fit one, predict --against another of the
# same system class, bench --against, and broken or mismatched tables (exit 2, the file and line named).
NT="$(cd "$(dirname "$0")/../data/nccl-tests" && pwd)"
FITD=$(mktemp -d /tmp/microddp-cli-fit.XXXXXX)
expect 0 "fit: an α-β model (one link class: every message costs α + m·β) through microddp's ring all_reduce schedule on 16 ranks on 2 nodes of NVIDIA H100 80GB HBM3
  not NCCL's tuning model (protocols, channels, NVLS): α and β are effective values for this table
  source: $NT/h100-2x8-ib-allreduce.txt (all_reduce_perf, NCCL 2.26.2+cuda12.8)
  α = 0.965 µs per message (the floor: 30 messages on the critical path; from the out-of-place rows of 10 sizes, 8 B .. 4 KiB (4096 B))
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
expect 0 "  launch = 0 us per call (not fitted: no row of 4 KiB (4096 B) or less)" -- fit "$NT/h200-2x8-allreduce.txt" --out "$FITD/x.json"
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
# without --ranks, bench runs the file's 8 ranks (was refused as "--ranks 2 but ... has 8 ranks")
expect 0 "# microddp bench: all_reduce on 8 ranks, backend threads" -- bench -b 1M -e 1M --passes 1 -n 1 -w 0 --preset nvlink --against "$NT/a100-1x8-allreduce.txt"
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
# tables that would read silently wrong: rank lines pasted twice, a negative size (exit 2, FILE:LINE and the value)
A1="$NT/a100-1x8-allreduce.txt"
{ head -12 "$A1"; sed -n 5,12p "$A1"; tail -n +13 "$A1"; } > "$FITD/dupranks.txt"
expect 2 "error: $FITD/dupranks.txt:13: rank 0 (Pid 944 on inst-ks8ls-comp) is printed again after line 5: one line per rank (the rank lines pasted twice?)" -- predict --preset nvlink --against "$FITD/dupranks.txt"
sed 's/^          64            16 /         -64            16 /' "$A1" > "$FITD/negsize.txt"
expect 2 "error: $FITD/negsize.txt:17: size (B) is '-64' (expected a whole number >= 0)" -- predict --preset nvlink --against "$FITD/negsize.txt"
rm -rf "$FITD"
cli_summary
