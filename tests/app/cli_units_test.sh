#!/bin/sh
# Units in the CLI's output, exact lines:
# - `microddp ddp` names the bucket cap in MiB with its exact byte count:
#   --bucket-cap-mb counts MB as PyTorch does (2^20 bytes), so 0.25 is
#   0.25 MiB = 2^18 = 262144 bytes (it printed "0.25 MB (2^20 B)"), and a
#   lesson's run line the same ("0.0015 MiB (1573 B)", not "0.0015 MB");
# - `microddp predict -a all` prints its table in one time unit (µs, ms or s,
#   by the longest time), not 1.4e-05 s beside 0.0233 s.
# usage: cli_units_test.sh MICRODDP
set -u
cli=$1
fail=0
out=$("$cli" ddp --ranks 2 --depth 2 --width 16 --iterations 1 --bucket-cap-mb 0.25) || { echo "FAIL: ddp: $out"; exit 1; }
want="mode: DDP, overlap bucketed, all_reduce algorithm ring, bucket cap 0.25 MiB (262144 B): 1 bucket"
if ! printf '%s\n' "$out" | grep -qxF "$want"; then
  echo "FAIL: expected the line '$want' in:"; printf '%s\n' "$out"; fail=1
fi
out=$("$cli" ddp --ranks 2 --depth 2 --width 16 --iterations 1 --bucket-cap-mb 0.001) || { echo "FAIL: ddp: $out"; exit 1; }
if ! printf '%s\n' "$out" | grep -qF "bucket cap 0.001 MiB (1049 B):"; then
  echo "FAIL: 0.001 MiB is not printed as 1049 B:"; printf '%s\n' "$out" | grep "bucket cap"; fail=1
fi
# The lesson's run line says the same cap as `microddp ddp` (MiB, the byte
# count the lab closes a bucket at) and its layer delay as a time (20 ms,
# not 20000 µs), the one rule of core/ir/units.h.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/units.yaml" <<'YAML'
title: "units"
ddp: {ranks: 2, depth: 2, width: 4, batch: 4, iterations: 1, overlap: bucketed, bucket_cap_mb: 0.0015, layer_delay_us: 20000}
beats:
  - kind: ddp
    text: |
      The bucket cap and the layer delay.
YAML
out=$("$cli" lesson "$tmp/units.yaml" --non-interactive 2>&1) || { echo "FAIL: lesson: $out"; exit 1; }
want="run: ddp · 2 ranks · depth 2 · width 4 · batch 4 · 1 iterations · overlap bucketed · bucket cap 0.0015 MiB (1573 B) · ring · layer delay 20 ms"
if ! printf '%s\n' "$out" | grep -qxF "$want"; then
  echo "FAIL: expected the line '$want' in:"; printf '%s\n' "$out"; fail=1
fi
out=$("$cli" ddp --ranks 2 --depth 2 --width 4 --iterations 1 --bucket-cap-mb 0.0015) || { echo "FAIL: ddp: $out"; exit 1; }
if ! printf '%s\n' "$out" | grep -qF "bucket cap 0.0015 MiB (1573 B):"; then
  echo "FAIL: ddp's cap is not 0.0015 MiB (1573 B), as the lesson says:"; printf '%s\n' "$out" | grep "bucket cap"; fail=1
fi
out=$("$cli" predict -a all --preset nvlink) || { echo "FAIL: predict: $out"; exit 1; }
for want in "algorithm             steps    α term (ms)    β term (ms)    γ term (ms)  lockstep (ms) pipelined (ms) closed form (ms)" \
            "naive                    14         0.0140        23.3333         0.0000        23.3473        23.3473          23.3473" \
            "ring                     14         0.0140         2.9167         0.0000         2.9307         2.9307           2.9307"; do
  if ! printf '%s\n' "$out" | grep -qxF "$want"; then
    echo "FAIL: predict -a all --preset nvlink lacks the line '$want':"; printf '%s\n' "$out"; fail=1
  fi
done
if printf '%s\n' "$out" | grep -q "e-0"; then
  echo "FAIL: predict -a all prints a time in e-notation:"; printf '%s\n' "$out" | grep "e-0"; fail=1
fi
# The sweep's crossover: the grid points that bracket it and the model's
# exact size, the 373 KiB of lesson 03 and the window (it said "at 512 KiB",
# the first grid point past it).
out=$("$cli" predict -c all_reduce -a ring --ranks 7 --preset nvlink --sweep) || { echo "FAIL: predict --sweep: $out"; exit 1; }
want="crossover: ring overtakes tree between 256 KiB and 512 KiB of the sweep; the model's crossover is 372.9 KiB (381836 B)"
if ! printf '%s\n' "$out" | grep -qxF "$want"; then
  echo "FAIL: expected the line '$want' in:"; printf '%s\n' "$out" | grep crossover; fail=1
fi
# Microseconds are µs everywhere in the CLI, never "us" (predict said "α = 1 us").
out=$("$cli" predict -a ring --preset nvlink --bytes 1K) || { echo "FAIL: predict: $out"; exit 1; }
for want in "nvlink: α = 1 µs, bandwidth = 600 GB/s (β = 1.667e-12 s/B)" "  α term            14.00 µs"; do
  if ! printf '%s\n' "$out" | grep -qxF "$want"; then
    echo "FAIL: predict -a ring lacks the line '$want':"; printf '%s\n' "$out"; fail=1
  fi
done
[ $fail = 0 ] && echo "PASS: the bucket cap in MiB with its bytes; predict's table in one time unit; the sweep's crossover; µs"
exit $fail
