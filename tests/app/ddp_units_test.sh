#!/bin/sh
# `microddp ddp` names the bucket cap in MiB with its exact byte count:
# --bucket-cap-mb counts MB as PyTorch does (2^20 bytes), so 0.25 is
# 0.25 MiB = 2^18 = 262144 bytes (it printed "0.25 MB (2^20 B)").
# usage: ddp_units_test.sh MICRODDP
set -u
cli=$1
fail=0
out=$("$cli" ddp --ranks 2 --depth 2 --width 16 --iterations 1 --bucket-cap-mb 0.25) || { echo "FAIL: ddp: $out"; exit 1; }
want="mode: DDP, overlap bucketed, all_reduce algorithm ring, bucket cap 0.25 MiB (262144 B): 1 buckets"
if ! printf '%s\n' "$out" | grep -qxF "$want"; then
  echo "FAIL: expected the line '$want' in:"; printf '%s\n' "$out"; fail=1
fi
out=$("$cli" ddp --ranks 2 --depth 2 --width 16 --iterations 1 --bucket-cap-mb 0.001) || { echo "FAIL: ddp: $out"; exit 1; }
if ! printf '%s\n' "$out" | grep -qF "bucket cap 0.001 MiB (1049 B):"; then
  echo "FAIL: 0.001 MiB is not printed as 1049 B:"; printf '%s\n' "$out" | grep "bucket cap"; fail=1
fi
[ $fail = 0 ] && echo "PASS: the bucket cap is printed in MiB with its bytes"
exit $fail
