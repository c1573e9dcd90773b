# Sourced by the cluster lab's tests: exits 77 (skipped, with the reason)
# where this machine cannot make what `microddp cluster` needs -- mpirun,
# iproute2 and util-linux, network/PID/mount/UTS namespaces, veths, a
# bridge and a tbf qdisc -- as root, or (not root) in a user namespace, as
# the lab makes them.
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
for t in ip tc unshare nsenter; do command -v $t >/dev/null || { echo "SKIP: no $t (iproute2/util-linux)"; exit 77; }; done
userns=()
[[ $(id -u) == 0 ]] || userns=(--map-root-user)
if ! probe=$(unshare ${userns[@]+"${userns[@]}"} --net --pid --fork --mount --uts sh -c \
  'ip link add mddpT0 type veth peer name mddpT1 && ip link add mddpTb type bridge &&
   tc qdisc add dev mddpT0 root tbf rate 1mbit burst 64k latency 50ms' 2>&1); then
  echo "SKIP: cannot create namespaces, veths, a bridge or a tbf qdisc here: $probe"
  exit 77
fi
