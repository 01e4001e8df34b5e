#!/bin/bash
# Several "hosts" on this machine for multi-host MPI tests: network namespaces joined by veth
# pairs to one bridge (root needed).
#   scripts/netns-hosts.sh up N [NAME]     create NAME0..NAME<N-1> (default NAME: mpiins), print their IPs
#   scripts/netns-hosts.sh down N [NAME]   remove them
# Host i is 10.<k>.0.<i+1>/24, the bridge (this namespace, where mpirun runs) 10.<k>.0.254, with
# <k> derived from NAME so that several sets can coexist. Launch into them with Open MPI through
# scripts/netns-rsh (--mca plm_rsh_agent), which runs the remote command in the namespace owning
# the host's address. The filesystem is shared, as on a cluster with the shim at the same path.
set -euo pipefail
cmd=${1:?usage: netns-hosts.sh up|down N [NAME]}
n=${2:?usage: netns-hosts.sh up|down N [NAME]}
name=${3:-mpiins}
k=$(( $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 + 20 ))
br="${name}br"
case "$cmd" in
up)
  ip link add "$br" type bridge
  ip addr add "10.$k.0.254/24" dev "$br"
  ip link set "$br" up
  for ((i = 0; i < n; i++)); do
    ns="$name$i"
    ip netns add "$ns"
    ip link add "${name}h$i" type veth peer name "${name}n$i"
    ip link set "${name}n$i" netns "$ns"
    ip -n "$ns" link set "${name}n$i" name eth0
    ip -n "$ns" addr add "10.$k.0.$((i + 1))/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip link set "${name}h$i" master "$br" up
    echo "10.$k.0.$((i + 1))"
  done
  ;;
down)
  for ((i = 0; i < n; i++)); do
    ip netns del "$name$i" 2>/dev/null || true
    ip link del "${name}h$i" 2>/dev/null || true
  done
  ip link del "$br" 2>/dev/null || true
  ;;
*) echo "usage: netns-hosts.sh up|down N [NAME]" >&2; exit 2 ;;
esac
