#!/usr/bin/env bash
# microddp under mpirun when the ranks are not all given the same thing.
# Usage: mpi_launch_test.sh MODE "MPIRUN WORDS" MICRODDP
#   early_exit  one rank leaves without running the collective (--help, a
#               parse error, a usage error, --backend threads, another
#               command): the job ends with that rank's exit code or a rank
#               named, never waits in MPI_Init
#   timeout     MICRODDP_MPI_TIMEOUT that is not a positive finite number of
#               seconds up to one day: exit 2, the value named
#   disagree    MPMD jobs (-n 1 A : -n 1 B) whose ranks were given different
#               options: exit 2 before anything runs, the option named as typed
#   stop        rank 2 of 3 SIGSTOPped while the ranks prepare a large run
#               (the cluster lab's stop drill on one host): rank 0 names it
#               after MICRODDP_MPI_TIMEOUT and the job ends
# Every job runs under `timeout`, so a regression fails instead of hanging.
set -uo pipefail
mode=$1
read -r -a mpirun <<<"$2"
microddp=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/mddp-mpi-launch.XXXXXX")
trap 'rm -rf "$work"' EXIT
export MICRODDP_MPI_TIMEOUT=${MICRODDP_MPI_TIMEOUT:-5}
failures=0
fail() {
  echo "FAIL: $*"
  echo "--- stderr:"; cat "$work/err"
  failures=$((failures + 1))
}

# job LIMIT ARGS...: runs mpirun ARGS under `timeout LIMIT`; sets rc.
job() {
  local limit=$1
  shift
  rc=0
  timeout "$limit" "${mpirun[@]}" "$@" >"$work/out" 2>"$work/err" || rc=$?
  [[ $rc != 124 ]] || fail "still running after $limit s: ${*}"
}
# expect RC LINE: exit code RC and LINE among stderr's lines (fixed string).
expect() {
  local want_rc=$1 line=$2
  [[ $rc == "$want_rc" ]] || fail "exit $rc, expected $want_rc"
  grep -qxF -- "$line" "$work/err" || fail "no line: $line"
}
run2=(run --backend mpi --ranks 2 --count 4)

case $mode in
early_exit)
  # A healthy job first: the checks below are about the rank that differs.
  job 60 -n 2 "$microddp" "${run2[@]}"
  [[ $rc == 0 ]] || fail "healthy 2-rank run: exit $rc"
  grep -q '^ok: matches the reference' "$work/out" || fail "healthy 2-rank run: no ok line"
  echo "healthy run: exit 0"

  # --help on rank 1: it prints the help and ends the job (exit 0, the help's).
  job 60 -n 1 "$microddp" "${run2[@]}" : -n 1 "$microddp" "${run2[@]}" --help
  [[ $rc == 0 ]] || fail "--help on rank 1: exit $rc, expected 0"
  grep -q '^Usage: .*run \[OPTIONS\]' "$work/out" || fail "--help on rank 1: no help printed"
  ! grep -q '^ok:' "$work/out" || fail "--help on rank 1: rank 0 ran alone"
  echo "--help on rank 1: exit $rc, ended"

  # A parse error on rank 1: its message and exit code 2.
  job 60 -n 1 "$microddp" "${run2[@]}" : -n 1 "$microddp" "${run2[@]}" --no-such-option
  expect 2 "error: The following argument was not expected: --no-such-option"
  echo "parse error on rank 1: exit $rc"

  # bench --mpi-algorithm two_proc on 3 ranks: refused on every rank before
  # MPI starts, naming the algorithm and the size (Open MPI itself would
  # fail MPI_Allgather with MPI_ERR_UNSUPPORTED_OPERATION and abort).
  job 60 -n 3 "$microddp" bench --backend mpi --reference mpi --collective all_gather --mpi-algorithm two_proc -b 64 -e 64 -n 1 -w 0
  expect 2 "error: Open MPI algorithm 'two_proc' (coll_tuned_allgather_algorithm 6) runs on exactly 2 ranks, not on 3: Open MPI fails the call (MPI_ERR_UNSUPPORTED_OPERATION) and aborts the job; run it under mpirun -n 2, or force another all_gather algorithm: linear, bruck, recursive_doubling, ring, neighbor"
  ! grep -q "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported" "$work/err" || fail "two_proc on 3 ranks reached Open MPI"
  echo "bench --mpi-algorithm two_proc on 3 ranks: exit $rc"
  job 60 -n 2 "$microddp" bench --backend mpi --reference mpi --collective all_gather --mpi-algorithm two_proc -b 64 -e 64 -n 1 -w 0
  [[ $rc == 0 ]] || fail "two_proc on 2 ranks: exit $rc"
  grep -qF "two_proc (forced: coll_tuned_allgather_algorithm)" "$work/out" || fail "two_proc on 2 ranks: not named as forced"
  echo "bench --mpi-algorithm two_proc on 2 ranks: exit $rc"

  # A usage error on rank 1 (threads backend: it never reaches MPI itself).
  job 60 -n 1 "$microddp" "${run2[@]}" : -n 1 "$microddp" run --backend threads --dtype bogus
  expect 2 "error: unknown dtype 'bogus' (expected one of: int32, int64, float16, bfloat16, float32, float64)"
  echo "usage error on rank 1: exit $rc"

  # --backend threads on rank 1: it runs alone and exits; rank 0 names it.
  job 60 -n 1 "$microddp" "${run2[@]}" : -n 1 "$microddp" run --backend threads --ranks 2 --count 4
  expect 3 "error: mpi backend: rank 0 waited 5 s for rank 1 to start the command (dead, hung, or running something else)"
  echo "--backend threads on rank 1: exit $rc, rank 1 named"

  # Another command on rank 1 (predict never uses MPI): the same.
  job 60 -n 1 "$microddp" "${run2[@]}" : -n 1 "$microddp" predict -n 2 --preset nvlink
  expect 3 "error: mpi backend: rank 0 waited 5 s for rank 1 to start the command (dead, hung, or running something else)"
  echo "predict on rank 1: exit $rc, rank 1 named"
  ;;
timeout)
  # Each value on every rank: refused before MPI starts, the value named.
  check() {  # check VALUE WHY
    MICRODDP_MPI_TIMEOUT=$1 job 60 -n 2 "$microddp" "${run2[@]}"
    expect 2 "error: MICRODDP_MPI_TIMEOUT='$1': $2; give a number of seconds, > 0 and at most 86400 (one day)"
    # Once per rank that printed it before mpirun ended the job, never twice.
    (($(grep -c "MICRODDP_MPI_TIMEOUT=" "$work/err") <= 2)) || fail "the error printed more than once per rank"
    echo "MICRODDP_MPI_TIMEOUT='$1': exit $rc ($2)"
  }
  check inf "more than one day"
  check 1e30 "more than one day"
  check 86401 "more than one day"
  check abc "not a number"
  check nan "not a number"
  check 30s "not a number"
  check 0 "not above 0"
  check -5 "not above 0"
  MICRODDP_MPI_TIMEOUT= job 60 -n 2 "$microddp" "${run2[@]}"
  expect 2 "error: MICRODDP_MPI_TIMEOUT='' (empty): not a number; give a number of seconds, > 0 and at most 86400 (one day)"
  echo "MICRODDP_MPI_TIMEOUT='': exit $rc"
  # Without mpirun (a singleton MPI process) too.
  rc=0
  MICRODDP_MPI_TIMEOUT=inf timeout 60 "$microddp" run --backend mpi --ranks 1 >"$work/out" 2>"$work/err" || rc=$?
  expect 2 "error: MICRODDP_MPI_TIMEOUT='inf': more than one day; give a number of seconds, > 0 and at most 86400 (one day)"
  echo "singleton, MICRODDP_MPI_TIMEOUT=inf: exit $rc"
  # The largest and a small valid value run as usual.
  for v in 86400 0.5; do
    MICRODDP_MPI_TIMEOUT=$v job 60 -n 2 "$microddp" "${run2[@]}"
    [[ $rc == 0 ]] || fail "MICRODDP_MPI_TIMEOUT=$v: exit $rc, expected 0"
    grep -q '^ok: matches the reference' "$work/out" || fail "MICRODDP_MPI_TIMEOUT=$v: no ok line"
    echo "MICRODDP_MPI_TIMEOUT=$v: exit 0"
  done
  ;;
disagree)
  # disagree "ARGS OF RANK 0" "ARGS OF RANK 1" LINE
  disagree() {
    local -a a b
    read -r -a a <<<"$1"
    read -r -a b <<<"$2"
    job 60 -n 1 "$microddp" "${run2[@]}" "${a[@]}" : -n 1 "$microddp" "${run2[@]}" "${b[@]}"
    expect 2 "error: mpi backend: ranks disagree: $3"
    ! grep -q '^ok:' "$work/out" || fail "ran although the ranks disagree: $3"
    echo "[$1] vs [$2]: exit $rc: $3"
  }
  cd "$work" || exit 1
  disagree "--data 1;2" "--data 1;3" "rank 1 called with --data 1;3 but rank 0 with --data 1;2"
  disagree "--fill iota" "--fill random:1" "rank 1 called with --fill random:1 but rank 0 with --fill iota"
  disagree "--fill iota" "" "rank 1 called without --fill but rank 0 with --fill iota"
  disagree "" "--trace t.json" "rank 1 called with --trace t.json but rank 0 without --trace"
  [[ ! -e t.json ]] || fail "--trace on rank 1 wrote t.json"
  disagree "" "--save-record r.json" "rank 1 called with --save-record r.json but rank 0 without --save-record"
  disagree "--dtype int32" "--dtype int64" "rank 1 called with --dtype int64 but rank 0 with --dtype int32"
  disagree "--op sum" "--op max" "rank 1 called with --op max but rank 0 with --op sum"
  disagree "--in-place" "" "rank 1 called without --in-place but rank 0 with --in-place"
  disagree "-a tree" "-a ring" "rank 1 called with --algorithm ring but rank 0 with --algorithm tree"
  disagree "--json" "--steps" "rank 1 called without --json but rank 0 with --json"
  # --input: the same path, other values on each rank's host (here: its
  # working directory): compared after reading.
  mkdir -p h0 h1
  echo '{"inputs": [[1, 2, 3, 4], [5, 6, 7, 8]]}' >h0/in.json
  echo '{"inputs": [[1, 2, 3, 4], [5, 6, 7, 9]]}' >h1/in.json
  job 60 -n 1 -wdir "$work/h0" "$microddp" "${run2[@]}" --input in.json : -n 1 -wdir "$work/h1" "$microddp" "${run2[@]}" --input in.json
  [[ $rc == 2 ]] || fail "--input with other values on rank 1: exit $rc, expected 2"
  grep -qxE "error: mpi backend: ranks disagree: rank 1 called with --input in.json \(values read: hash [0-9a-f]{16}\) but rank 0 with --input in.json \(values read: hash [0-9a-f]{16}\)" "$work/err" ||
    fail "--input with other values on rank 1: not named"
  echo "--input in.json, other values on rank 1: exit $rc"
  cp h0/in.json h1/in.json
  job 60 -n 1 -wdir "$work/h0" "$microddp" "${run2[@]}" --input in.json : -n 1 -wdir "$work/h1" "$microddp" "${run2[@]}" --input in.json
  [[ $rc == 0 ]] || fail "--input with the same values: exit $rc, expected 0"
  echo "--input in.json, the same values: exit $rc"
  # (run2 gives --count already: these give it once each.)
  job 60 -n 1 "$microddp" run --backend mpi --ranks 2 --count 8 : -n 1 "$microddp" run --backend mpi --ranks 2 --count 9
  expect 2 "error: mpi backend: ranks disagree: rank 1 called with --count 9 but rank 0 with --count 8"
  echo "--count 8 vs 9: exit $rc"
  # bench: the same agreement.
  job 120 -n 1 "$microddp" bench --backend mpi --ranks 2 -b 64 -e 64 : -n 1 "$microddp" bench --backend mpi --ranks 2 -b 64 -e 128
  expect 2 "error: mpi backend: ranks disagree: rank 1 called with --maxbytes 128 but rank 0 with --maxbytes 64"
  echo "bench -e 64 vs 128: exit $rc"
  ;;
stop)
  # Rank 2 stops itself (SIGSTOP) just before the run's start barrier
  # (MICRODDP_MPI_STOP_RANK): past MPI_Init, at the same point on a fast or
  # a loaded machine. (A kill -STOP from here after a fixed sleep hit a
  # finished job on an idle machine.) The others must name it.
  export MICRODDP_MPI_TIMEOUT=3 MICRODDP_MPI_STOP_RANK=2
  "${mpirun[@]}" -n 3 "$microddp" run --backend mpi --ranks 3 --count 1024 --fill random:1 >"$work/out" 2>"$work/err" &
  launcher=$!
  victim=
  for _ in $(seq 300); do
    for p in $(pgrep -P "$launcher"); do
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2 && victim=$p
    done
    [[ -n $victim ]] && break
    sleep 0.1
  done
  [[ -n $victim ]] || { kill "$launcher"; fail "rank 2 never started"; exit 1; }
  start=$SECONDS
  for _ in $(seq 600); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$launcher" 2>/dev/null; then
    kill -CONT "$victim"; kill "$launcher"; wait "$launcher"
    fail "the job still runs 60 s after rank 2 was stopped"
  else
    rc=0
    wait "$launcher" || rc=$?
    kill -CONT "$victim" 2>/dev/null
    echo "exit $rc, $((SECONDS - start)) s after the stop"
    grep "^error: mpi backend" "$work/err" | head -2
    [[ $rc != 0 ]] || fail "the job succeeded although rank 2 was stopped"
    grep -Eq "^error: mpi backend: rank [0-9]+ waited 3 s for (.*[^0-9])?(rank 2|ranks ([0-9]+, )*2)([^0-9]|\$)" "$work/err" ||
      fail "rank 2 not named as the one waited for"
  fi
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
((failures == 0)) || { echo "$failures failure(s)"; exit 1; }
echo "PASS: $mode"
