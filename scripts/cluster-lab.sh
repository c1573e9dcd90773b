#!/bin/bash
# The cluster lab's inside: an emulated cluster of N hosts on this machine,
# each a network + UTS namespace with its own host name and NIC(s), the NICs
# shaped with tbf, and an Open MPI job placed on them through mpirun's rsh
# launcher (this script's `agent` mode stands in for ssh).
#
# Not meant to be run by hand: `microddp cluster` (app/cli/cmd_cluster.cpp)
# validates the options, then starts this script as PID 1 of fresh PID,
# network, mount and UTS namespaces (clone(2)). That is what makes teardown
# reliable: when this script ends -- normally, on a signal, or because the
# kernel killed it (its parent set PDEATHSIG) -- the kernel kills every
# process left in the PID namespace (mpirun, orted, ranks, the node holders),
# the node namespaces lose their last process and vanish with their veths,
# the bridges vanish with this network namespace, and the tmpfs on /dev/shm
# and the /etc/hosts bind mount vanish with the mount namespace. Nothing is
# named on the host (no /run/netns entries), so nothing can be left there.
#
# usage (from cmd_cluster.cpp):
#   cluster-lab.sh lab NODES RANKS_PER_NODE NIC_BPS NICS_PER_NODE KEEP_GOING READY_FD -- MICRODDP SUBCOMMAND [ARGS...]
# SUBCOMMAND [ARGS...] is what cmd_cluster.cpp planned (app/cli/lab_job.h):
# run, bench, doctor or calibrate with --backend mpi and the lab's world
# size; this script runs it as one job of NODES x RANKS_PER_NODE ranks.
# READY_FD: a pipe to `microddp cluster`; one byte on it says the signal
# traps are set (before that the parent stops the lab with SIGKILL: a
# signal to a PID 1 without a handler is dropped).
#   cluster-lab.sh agent [ssh-style options] HOST COMMAND...   (mpirun's plm_rsh_agent)
# NIC_BPS is in bits per second (tc's "bit"), as parsed by cmd_cluster.cpp.
#
# Addresses (private, only inside these namespaces): rail r (0..K-1) is the
# bridge br<r> with 10.77.<r>.254 on the head; node k's eth<r> is
# 10.77.<r>.<k+1>. Host names: head, node0 .. node<N-1> (rail 0 addresses).
set -euo pipefail

self=$(readlink -f "$0")
lab=/dev/shm/mddp-lab

# --- agent mode: what mpirun runs instead of `ssh HOST COMMAND...` ----------
if [[ ${1:-} == agent ]]; then
  shift
  while [[ ${1:-} == -* ]]; do shift; done  # ssh options such as -x
  host=${1:?agent: no host}
  shift
  pid=$(cat "$lab/$host.pid") || { echo "cluster-lab agent: unknown host $host" >&2; exit 255; }
  k=${host#node}
  # Like sshd: the words form one command line for the remote shell, run in
  # the node's network and UTS namespaces. The node's own TMPDIR keeps its
  # Open MPI session directory apart from the other nodes'.
  mkdir -p "$lab/tmp/$host"
  export TMPDIR=$lab/tmp/$host MICRODDP_CLUSTER_NODE=$k
  exec nsenter --target "$pid" --net --uts -- /bin/sh -c "$*"
fi

[[ ${1:-} == lab ]] || { echo "error: cluster-lab.sh is started by 'microddp cluster'" >&2; exit 2; }
[[ $# -ge 9 && $8 == -- ]] || { echo "error: cluster-lab.sh: expected -- before the command" >&2; exit 2; }

mpirun_pid=
# The signal the user sent (forwarded by `microddp cluster` as sent): named,
# the job stopped, exit 128 + its number. No command substitution here: a
# trap runs between any two commands of the script.
on_signal() {
  local sig=$1 num=$2 st _
  trap '' INT TERM HUP
  echo "cluster: $sig received: stopping the job and removing the lab" >&2
  if [[ -n $mpirun_pid ]]; then
    # mpirun relays the signal to every rank and reports; give it a moment,
    # the kernel kills whatever is left when this PID 1 exits. A dead
    # mpirun stays a zombie until waited for (kill -0 still succeeds):
    # its state in /proc says when it is gone.
    kill -TERM "$mpirun_pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      st=Z
      read -r _ _ st _ 2>/dev/null <"/proc/$mpirun_pid/stat" || break
      [[ $st == Z ]] && break
      sleep 0.1
    done
  fi
  exit $((128 + num))
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

# Everything else runs as one function, read whole before it starts: a trap
# that fires while bash is still reading a later part of the script file
# broke bash's parser ("unexpected EOF while looking for matching ')'", exit
# 2 instead of the signal's).
lab_main() {
nodes=$2 gpn=$3 nic_bps=$4 nics=$5 keep_going=$6
shift 8
microddp=$1
shift
[[ $$ == 1 ]] || { echo "error: cluster-lab.sh must run as PID 1 of its own namespaces (microddp cluster)" >&2; exit 2; }

fail() { echo "error: cluster: $*" >&2; exit 1; }

# --- the lab's private filesystem bits ---------------------------------------
# (tmpfs default size: half the RAM, used only as filled -- vader segments, session dirs)
mount -t tmpfs -o mode=1777 mddp-lab-shm /dev/shm || fail "cannot mount a private tmpfs on /dev/shm"
mkdir -p "$lab/tmp"
hostname head
ip link set lo up

# --- the switch(es) and the nodes ---------------------------------------------
# tbf on both ends of each node link: the node end's egress caps what the node
# sends, the bridge end's egress caps what it receives -- a full-duplex NIC.
# burst: the bytes tbf lets through at once. A real NIC sends one frame at a
# time, so smaller is more faithful, but it must hold one GSO super-frame
# (64 KiB; tbf segments bigger ones, costing CPU) and what arrives in one
# timer tick on a busy 2-core machine; max(64 KiB, 1 ms at the rate) keeps
# the burst's share of a 4 MiB message below 2 %. latency 50ms bounds the
# queue (tc turns it into a byte limit); TCP sees drops beyond it.
nic_bytes=$((nic_bps / 8))
burst=$((nic_bytes / 1000 > 65536 ? nic_bytes / 1000 : 65536))
shape() {  # shape NETNS_PID|- DEV
  local cmd=(tc qdisc replace dev "$2" root tbf rate "${nic_bps}bit" burst "$burst" latency 50ms)
  if [[ $1 == - ]]; then "${cmd[@]}"; else nsenter --target "$1" --net -- "${cmd[@]}"; fi
}

for ((r = 0; r < nics; r++)); do
  ip link add "br$r" type bridge
  ip addr add "10.77.$r.254/24" dev "br$r"
  ip link set "br$r" up
done

hosts="127.0.0.1 localhost
10.77.0.254 head"
for ((k = 0; k < nodes; k++)); do
  # The holder: a sleeping process whose namespaces are node k. unshare execs
  # sleep only after unsharing, so wait for the namespace to differ before
  # moving links into it.
  unshare --net --uts -- sleep infinity &
  pid=$!
  for _ in $(seq 200); do
    [[ $(readlink /proc/$pid/ns/net 2>/dev/null) != "$(readlink /proc/self/ns/net)" ]] && break
    sleep 0.01
  done
  [[ $(readlink /proc/$pid/ns/net) != "$(readlink /proc/self/ns/net)" ]] || fail "node$k: namespace not created"
  echo "$pid" >"$lab/node$k.pid"
  nsenter --target "$pid" --uts -- hostname "node$k"
  nsenter --target "$pid" --net -- ip link set lo up
  for ((r = 0; r < nics; r++)); do
    ip link add "n${k}r$r" type veth peer name "eth$r" netns "$pid"
    ip link set "n${k}r$r" master "br$r" up
    nsenter --target "$pid" --net -- ip addr add "10.77.$r.$((k + 1))/24" dev "eth$r"
    nsenter --target "$pid" --net -- ip link set "eth$r" up
    shape - "n${k}r$r"
    shape "$pid" "eth$r"
  done
  hosts+="
10.77.0.$((k + 1)) node$k"
done
echo "$hosts" >"$lab/hosts"
mount --bind "$lab/hosts" /etc/hosts

# --- mpirun across the nodes ----------------------------------------------------
# Separate hosts for Open MPI: the rsh launcher (our agent) starts one orted
# per node inside it; ranks of one orted share memory (vader), the others
# talk TCP over eth* -- the shaped NICs. oob (mpirun <-> orted) on rail 0.
# Every node "has" G slots but all ranks share this machine's cores, so a
# rank waiting must yield (mpi_yield_when_idle): busy-polling ranks took
# 256 ms for a 64 KiB 2x2 all-reduce at 100mbit here, yielding ones 7 ms.
# No binding: G slots per node may exceed the real cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TMPDIR=$lab/tmp/head
mkdir -p "$TMPDIR"
nets=10.77.0.0/24
for ((r = 1; r < nics; r++)); do nets+=",10.77.$r.0/24"; done
mpi_common=(--mca plm_rsh_agent "$self agent" --mca plm_rsh_no_tree_spawn 1
  --mca btl self,vader,tcp --mca btl_tcp_if_include "$nets" --mca oob_tcp_if_include 10.77.0.0/24
  --bind-to none --oversubscribe --mca mpi_yield_when_idle 1)
[[ -n ${MICRODDP_MPI_TIMEOUT:-} ]] && mpi_common+=(-x MICRODDP_MPI_TIMEOUT)
# Extra mpirun options for the job (diagnostics, e.g. --display-map), split on blanks.
read -r -a extra <<<"${MICRODDP_CLUSTER_MPIRUN_ARGS:-}"

mbit() { awk -v b="$1" 'BEGIN { printf "%.1f Mbit/s", b / 1e6 }'; }

echo >&2 "cluster: $nodes nodes x $gpn ranks, $nics NIC(s) per node at $(mbit "$nic_bps") each (tbf both directions, burst $burst B)"
for ((k = 0; k < nodes; k++)); do
  addrs=
  for ((r = 0; r < nics; r++)); do addrs+=" eth$r 10.77.$r.$((k + 1))"; done
  echo >&2 "cluster: node$k ranks $((k * gpn))..$((k * gpn + gpn - 1)):$addrs"
done
ns="head $(readlink /proc/self/ns/net)"
for ((k = 0; k < nodes; k++)); do ns+=" node$k $(readlink "/proc/$(cat "$lab/node$k.pid")/ns/net")"; done
echo >&2 "cluster: namespaces (gone when the job ends): $ns"
echo >&2 "cluster: transport: same node = shared memory (vader), across nodes = TCP over the shaped NICs ($nets)"

# --- the NIC check: a measured transfer node0 <-> node1 beside the shaped rate --
# A 2-rank ring all-reduce moves S bytes each way per rank (two half-size
# steps), so bus bandwidth = the rate each direction of the link carried.
# Sized to take ~0.3 s per iteration at the shaped rate.
if ((nodes >= 2)); then
  size=65536
  while ((size * 2 <= nic_bytes * 3 / 10 && size < 64 * 1024 * 1024)); do size=$((size * 2)); done
  printf 'node0 slots=1\nnode1 slots=1\n' >"$lab/hostfile.check"
  check_out=$lab/check.json
  set +e
  mpirun "${mpi_common[@]}" --hostfile "$lab/hostfile.check" -n 2 \
    "$microddp" bench --backend mpi --ranks 2 -b "$size" -e "$size" -n 3 -w 1 --json \
    </dev/null >"$check_out" 2>"$lab/check.err" &
  mpirun_pid=$!
  wait $mpirun_pid
  rc=$?
  mpirun_pid=
  set -e
  if ((rc == 0)); then
    busbw=$(sed -n 's/.*"busbw_gbps": \([0-9.eE+-]*\).*/\1/p' "$check_out" | head -1)
    [[ -n $busbw ]] || { cat "$check_out" "$lab/check.err" >&2; fail "NIC check: no bus bandwidth in the bench output"; }
    measured=$(awk -v g="$busbw" 'BEGIN { printf "%.0f", g * 8e9 }')
    # Open MPI's TCP BTL stripes large messages over all of a node's NICs,
    # so the node's cap is K times one NIC's.
    pct=$(awk -v m="$measured" -v s="$((nic_bps * nics))" 'BEGIN { printf "%.0f", 100 * m / s }')
    shaped=$(mbit "$nic_bps")
    ((nics > 1)) && shaped="$nics x $shaped"
    echo >&2 "cluster: NIC check node0 -> node1: shaped $shaped, measured $(mbit "$measured") ($pct %; $size B all-reduce, 2 ranks)"
    # Above the cap means the shaping failed; below it may just be a busy
    # machine, so that is only a warning.
    if ((pct > 125)); then
      ((keep_going)) || fail "NIC check: measured rate is above the shaped rate; tbf is not shaping (--keep-going to run anyway)"
      echo >&2 "cluster: warning: measured rate above the shaped rate; going on (--keep-going)"
    elif ((pct < 50)); then
      echo >&2 "cluster: warning: measured rate below half the shaped rate (a busy machine?)"
    fi
  else
    cat "$check_out" "$lab/check.err" >&2
    ((keep_going)) || fail "NIC check: the 2-node transfer failed (mpirun exit $rc; --keep-going to run anyway)"
    echo >&2 "cluster: warning: NIC check failed; going on (--keep-going)"
  fi
else
  echo >&2 "cluster: NIC check skipped: one node, no traffic crosses a NIC"
fi

: >"$lab/hostfile"
for ((k = 0; k < nodes; k++)); do echo "node$k slots=$gpn" >>"$lab/hostfile"; done
# The lab's topology, told to every rank of the job (not to the NIC check
# above, a 2-rank job that is not the lab's: cluster_lab_from_env would
# read the lab's shape into it).
export MICRODDP_CLUSTER_NODES=$nodes MICRODDP_CLUSTER_RANKS_PER_NODE=$gpn \
  MICRODDP_CLUSTER_NIC_BPS=$nic_bps MICRODDP_CLUSTER_NICS_PER_NODE=$nics \
  MICRODDP_CLUSTER_INTRA=shm MICRODDP_CLUSTER_INTER=tcp
mpi_common+=(-x MICRODDP_CLUSTER_NODES -x MICRODDP_CLUSTER_RANKS_PER_NODE -x MICRODDP_CLUSTER_NIC_BPS
  -x MICRODDP_CLUSTER_NICS_PER_NODE -x MICRODDP_CLUSTER_INTRA -x MICRODDP_CLUSTER_INTER)
echo >&2 "cluster: mpirun -n $((nodes * gpn)) (by slot: node k holds ranks k*$gpn..) $microddp $*"
set +e
mpirun "${mpi_common[@]}" ${extra[@]+"${extra[@]}"} --hostfile "$lab/hostfile" --map-by slot -n $((nodes * gpn)) "$microddp" "$@" </dev/null &
mpirun_pid=$!
wait $mpirun_pid
rc=$?
mpirun_pid=
set -e
echo >&2 "cluster: job exit $rc; removing the lab (namespaces, links, bridges, processes)"
exit $rc
}
# The traps are set and the script is read: from now on `microddp cluster`
# forwards a signal here.
echo r >&"$7" && eval "exec $7>&-"
lab_main "$@"
