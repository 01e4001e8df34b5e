#!/bin/bash
# Several "hosts" on this machine for multi-host MPI tests and benchmarks: network namespaces joined
# by veth pairs to one bridge (root needed), optionally with a real link rate.
#
#   scripts/netns-hosts.sh up N [NAME] [--rate R [--burst B] [--no-check]]
#       create hosts NAME0..NAME<N-1> (default NAME: mpiins) and print their IPs, one a line.
#       --rate R (tc units: 100mbit, 1gbit, ...) gives every host a full-duplex "NIC" of rate R:
#       a tc tbf on both ends of its veth (what the host sends, what it receives). Then the rate
#       check runs: a large-message MPI ping-pong between hosts 0 and 1 over TCP, with Open MPI and
#       with MPICH where installed, must reach >= 90 % of R; it prints what it measured (stderr)
#       and fails `up` (hosts removed again) when a flavour falls short. --burst B: tbf's bucket
#       (default: 1 ms at the rate, at least 64kb). --no-check skips the check.
#   scripts/netns-hosts.sh check N [NAME] --rate R    the rate check alone, on hosts already up
#   scripts/netns-hosts.sh down N [NAME]              remove them (what is not there is skipped)
#   scripts/netns-hosts.sh launch-args N [NAME] --mpi openmpi|mpich
#       the launcher arguments (one a line, all but -np) that put one rank per host over TCP: the
#       hostfile `up` wrote (/tmp/netns-hosts-NAME/), the rsh agent, the transport (see launch_args)
#   scripts/netns-hosts.sh run N [NAME] [--rate ...] -- COMMAND...
#       up, then COMMAND with NETNS_IPS (space-separated) and NETNS_NAME in its environment, then
#       down on every way out (COMMAND's exit, failure, SIGINT, SIGTERM, SIGHUP); COMMAND's status.
#
# Host i is 10.<k>.0.<i+1>/24, the bridge (this namespace, where mpirun runs) 10.<k>.0.254, with
# <k> derived from NAME so that several sets can coexist; every interface name starts with NAME, so
# sets of different NAMEs never touch each other. Launch into the hosts with Open MPI through
# scripts/netns-rsh (--mca plm_rsh_agent), with MPICH's hydra through -launcher ssh -launcher-exec
# scripts/netns-rsh: it runs the remote command in the namespace owning the host's address. The
# filesystem is shared, as on a cluster with the shim at the same path.
# The kernel here has tbf but no netem: links get a rate, not a delay (see docs/overlap.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() {
  echo "usage: netns-hosts.sh up|down|check|launch-args|run N [NAME] [--rate R [--burst B] [--no-check]] [--mpi openmpi|mpich] [-- COMMAND...]" >&2
  exit 2
}
cmd=${1:-}
n=${2:-}
[[ -n $cmd && $n =~ ^[0-9]+$ ]] || usage
shift 2
name=mpiins
if [[ $# -gt 0 && $1 != -* ]]; then name=$1; shift; fi
rate='' burst='' check=1 mpi=''
command=()
while [[ $# -gt 0 ]]; do
  case $1 in
  --rate) rate=${2:?--rate needs a value, e.g. --rate 1gbit}; shift 2 ;;
  --burst) burst=${2:?--burst needs a value, e.g. --burst 128kb}; shift 2 ;;
  --no-check) check=0; shift ;;
  --mpi) mpi=${2:?--mpi needs openmpi or mpich}; shift 2 ;;
  --) shift; command=("$@"); break ;;
  *) echo "netns-hosts.sh: unknown option '$1'" >&2; usage ;;
  esac
done
if [[ ! $name =~ ^[a-z][a-z0-9]{0,10}$ ]]; then
  echo "netns-hosts.sh: NAME '$name' must be 1-11 lower-case letters/digits starting with a letter (interface names are NAME + up to 3 characters, at most 15)" >&2
  exit 2
fi
k=$(( $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 + 20 ))
br="${name}br"

# A tc rate in bit/s: 1gbit, 100mbit, 512kbit, 1000000bit (bit units only: tc's "bps" means bytes).
bits_per_s() {
  local v=$1 num unit
  if [[ ! $v =~ ^([0-9]+([.][0-9]+)?)(bit|kbit|mbit|gbit)$ ]]; then
    echo "netns-hosts.sh: rate '$v' not understood: give bit/s in tc units, e.g. 100mbit or 1gbit" >&2
    exit 2
  fi
  num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]}
  case $unit in bit) m=1 ;; kbit) m=1000 ;; mbit) m=1000000 ;; gbit) m=1000000000 ;; esac
  awk -v x="$num" -v m="$m" 'BEGIN { printf "%.0f", x * m }'
}

# tbf on one interface (in namespace $1, "" = this one): the rate, a bucket of 1 ms of it (at least
# 64 KiB: a TSO segment must fit, or tbf splits every segment) and a queue of 20 ms of it (TCP's
# small-queue limits keep it far from full; a smaller one drops and retransmits at high rates).
shape() {
  local ns=$1 dev=$2 bps b lim
  bps=$(bits_per_s "$rate")
  b=${burst:-$(( bps / 8 / 1000 > 65536 ? bps / 8 / 1000 : 65536 ))}
  lim=$(( bps / 8 / 50 > 131072 ? bps / 8 / 50 : 131072 ))
  if [[ -n $ns ]]; then ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$b" limit "$lim"
  else tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$b" limit "$lim"; fi
}

down() {
  for ((i = 0; i < n; i++)); do
    # what still runs on a host (a rank whose peer died busy-polls for ever) goes with it: deleting
    # the namespace alone would leave those processes running
    ip netns pids "$name$i" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$name$i" 2>/dev/null || true
    ip link del "${name}h$i" 2>/dev/null || true
  done
  ip link del "$br" 2>/dev/null || true
  rm -rf "/tmp/netns-hosts-$name"
}

up() {
  if ip link show "$br" >/dev/null 2>&1 || ip netns list | grep -q "^${name}0\b"; then
    echo "netns-hosts.sh: hosts named $name exist already (a run that was killed?): scripts/netns-hosts.sh down $n $name, or another NAME" >&2
    exit 1
  fi
  [[ -z $rate ]] || bits_per_s "$rate" >/dev/null
  # whatever fails (or interrupts) from here on removes what was made so far
  trap 'down; exit 130' INT TERM HUP
  trap 'down' ERR
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
    if [[ -n $rate ]]; then
      shape "$ns" eth0            # what host i sends
      shape "" "${name}h$i"       # what host i receives
    fi
  done
  mkdir -p "$state"
  : >"$state/hosts"
  : >"$state/hosts.mpich"
  for ((i = 0; i < n; i++)); do
    echo "10.$k.0.$((i + 1)) slots=1" >>"$state/hosts"
    echo "10.$k.0.$((i + 1)):1" >>"$state/hosts.mpich"
  done
  if [[ -n $rate && $check == 1 && $n -ge 2 ]]; then rate_check; fi
  trap - INT TERM HUP ERR
  for ((i = 0; i < n; i++)); do echo "10.$k.0.$((i + 1))"; done
}

# Hostfiles for the set, written by `up` and removed by `down`.
state="/tmp/netns-hosts-$name"

# The launcher arguments that run MPI ranks on the hosts over TCP (all but -np), one a line.
# Open MPI: ob1's tcp BTL; --bind-to none (each namespace is a host whose orted would pin its first
# rank to core 0: both ranks on one core); mpi_yield_when_idle (a rank waiting for the network
# yields the core: busy-polling ranks on this shared 2-core machine delay the kernel's softirq work
# that drains the tbf queues, and a 312 KB ping-pong then took 2x its link time).
# MPICH (ch4:ucx): UCX's tcp transport, no shared memory between the "hosts" (one kernel), hydra's
# interface the bridge; UCX_RNDV_THRESH=inf (UCX's rendezvous over tcp needs the receiver's
# progress for every fragment and ran at half the link rate here; eager is what its tcp transport
# streams at line rate).
launch_args() {
  local fl=$1
  case $fl in
  openmpi) printf '%s\n' --hostfile "$state/hosts" --mca plm_rsh_agent "$here/netns-rsh" --bind-to none \
    --mca pml ob1 --mca btl tcp,self --mca mpi_yield_when_idle 1 ;;
  mpich) printf '%s\n' -f "$state/hosts.mpich" -launcher ssh -launcher-exec "$here/netns-rsh" -iface "$br" \
    -genv UCX_TLS tcp -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_RNDV_THRESH inf ;;
  *) echo "netns-hosts.sh: launch-args wants openmpi or mpich, not '$fl'" >&2; exit 2 ;;
  esac
}

# The rate check: ping-pong of a message that takes ~25 ms at the rate (at least 4 buckets), between
# hosts 0 and 1, one rank each, over TCP. tbf lets a full bucket through at once after the idle
# half of the round trip, so the rate is (size - bucket) / half round trip. Each MPI must reach 90 %.
rate_check() {
  local bps size tmp ok=1 bucket
  bps=$(bits_per_s "$rate")
  bucket=${burst:-$(( bps / 8 / 1000 > 65536 ? bps / 8 / 1000 : 65536 ))}
  [[ $bucket =~ ^[0-9]+$ ]] || bucket=0 # a --burst in tc units: not corrected for
  size=$(awk -v b="$bps" -v k="$bucket" 'BEGIN { s = b / 8 * 0.025; if (s < 4 * k) s = 4 * k; if (s > 67108864) s = 67108864; printf "%d", s }')
  tmp=$(mktemp -d /tmp/netns-check.XXXXXX)
  trap 'rm -rf "$tmp"; [[ $cmd == check ]] || down; exit 130' INT TERM HUP
  for fl in openmpi mpich; do
    command -v "mpicc.$fl" >/dev/null && command -v "mpirun.$fl" >/dev/null || continue
    mpicc."$fl" -O2 -o "$tmp/pp-$fl" "$here/../bench/pingpong.c"
    local out half got pct args=()
    mapfile -t args < <(launch_args "$fl")
    if ! out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash timeout 120 \
      "mpirun.$fl" "${args[@]}" -np 2 "$tmp/pp-$fl" 20 "$size" 3 2>&1); then
      echo "netns-hosts.sh: rate check: $fl ping-pong failed: $(printf '%s' "$out" | tail -n 3)" >&2
      ok=0
      continue
    fi
    half=$(printf '%s' "$out" | sed -n 's/.*half_rtt_ns=\([0-9.]*\).*/\1/p')
    got=$(awk -v s="$size" -v k="$bucket" -v h="$half" 'BEGIN { printf "%.1f", (s - k) * 8 / (h / 1e9) / 1e6 }')
    pct=$(awk -v g="$got" -v b="$bps" 'BEGIN { printf "%.0f", g * 1e6 / b * 100 }')
    if ((pct >= 90)); then
      echo "rate check: $fl TCP ping-pong of $size bytes between ${name}0 and ${name}1: $got Mbit/s = $pct % of $rate (>= 90 %: ok)" >&2
    else
      echo "rate check: $fl TCP ping-pong of $size bytes between ${name}0 and ${name}1: $got Mbit/s = $pct % of $rate (< 90 %: FAILED; a busy machine? try again, or a larger --burst)" >&2
      ok=0
    fi
  done
  rm -rf "$tmp"
  if ((ok == 0)); then
    [[ $cmd == check ]] || down
    exit 1
  fi
}

case "$cmd" in
up) up ;;
launch-args) launch_args "$mpi" ;;
down) down ;;
check)
  [[ -n $rate ]] || { echo "netns-hosts.sh: check needs --rate R (the rate the links were given)" >&2; exit 2; }
  rate_check
  ;;
run)
  [[ ${#command[@]} -gt 0 ]] || { echo "netns-hosts.sh: run needs -- COMMAND..." >&2; exit 2; }
  ips=$(up)
  trap 'down' EXIT
  trap 'exit 130' INT TERM HUP
  NETNS_IPS=$(echo $ips) NETNS_NAME=$name "${command[@]}"
  ;;
*) usage ;;
esac
