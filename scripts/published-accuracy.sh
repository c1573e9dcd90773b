#!/usr/bin/env bash
# The NCCL-shaped tuner against every shipped published nccl-tests table
# (tests/data/nccl-tests/, sources in SOURCES.md there): per table the named
# system it is held against, the median |error| over the out-of-place rows
# and per size range, and whether it meets issue 36's targets (median
# |error| <= 25% at >= 512 MiB, <= 50% at <= 1 MiB). Prints; asserts nothing
# (the exact figures are asserted in tests/cli/test_cli.sh).
# usage: scripts/published-accuracy.sh [path/to/microddp]
set -euo pipefail
BIN=${1:-build/release/app/microddp}
D=$(dirname "$0")/../tests/data/nccl-tests
printf '%-28s %-10s %s\n' "published table" "system" "median |error| (all rows; per size range)"
while read -r file system; do
  line=$("$BIN" predict --nccl-system "$system" -c all_reduce --against "$D/$file" | grep '^median |error|')
  printf '%-28s %-10s %s\n' "$file" "$system" "${line#median |error|: }"
done <<'TABLES'
a100-1x8-allreduce.txt dgx-a100
a100-2x8-allreduce.txt dgx-a100
h100-2x8-allreduce.txt dgx-h100
h100-2x8-ib-allreduce.txt dgx-h100
h100-2x8-b-allreduce.txt dgx-h100
h100-8x8-allreduce.txt dgx-h100
h200-2x8-allreduce.txt hgx-h200
TABLES
echo "(gh200-2x4 has 4 GPUs per node: no named system matches it; a100-1x8-sendrecv: the tuner has no send/recv)"
