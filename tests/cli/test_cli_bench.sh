#!/usr/bin/env bash
# microddp bench and calibrate as a user types them: passes, the machine-state
# probe, profile checks, --mpi-algorithm, calibrate --quick and a full calibrate.
. "$(dirname "$0")/cli_lib.sh" "$1"
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
expect 0 "; its w($((NC + 1))) = 3.000 µs)" -- bench -b 4K -e 4K -n 2 -w 1 --ranks $((NC + 1)) --profile "$PW"
out=$("$BIN" bench -b 4K -e 4K -n 2 -w 1 --ranks "$NC" --profile "$PW" 2>&1)
if grep -q "peer-wait check" <<<"$out"; then echo "FAIL: a peer-wait check at $NC ranks on $NC CPUs"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
rm -f "$PW"
expect 0 "# prediction: profile $CHECKED (α = 1.000 µs, bandwidth = 10.000 GB/s)" -- bench -b 4K -e 4K -n 2 -w 1 --profile "$CHECKED"
expect 0 "# prediction: preset nvlink (a what-if for other hardware; the times are this machine's) (α = 1.000 µs, bandwidth = 600.000 GB/s)" -- bench -b 4K -e 4K -n 2 -w 1 --preset nvlink --profile "$CHECKED"
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
head=$(grep -A1 '^profile (quick): α = [0-9.]* µs, bandwidth = ' <<<"$out" | tail -1)
re='^  \(quick: (α and bandwidth are|α is the small msgs line.s \(the large one is bandwidth only\), bandwidth is) the (large msgs|one) line above, fitted on ([0-9]+) sizes, ([0-9]+) B \.\. 1048576 B, x4 apart, 1 round; (below ([0-9]+) B the profile uses the small msgs line, α = [0-9.]+ µs; )?not measured: sizes above 1048576 B \(the full calibrate fits up to 67108864 B, x2 apart, 9 rounds\), the cache curve, the machine-state probe.s 32 KiB reference\)$'
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
  small=$(grep -oE '^small msgs : α = [0-9.]+ µs, bandwidth = [0-9.]+ GB/s' <<<"$out" | sed 's/^small msgs : //')
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
cli_summary
