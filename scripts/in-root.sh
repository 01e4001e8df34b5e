#!/usr/bin/env bash
# Runs a command inside a Debian root made by scripts/debian-root.sh, with chroot:
#
#   bash scripts/in-root.sh /var/cache/mpii-roots/trixie node --version
#
# Inside, /proc, /sys, /dev and /dev/pts are the host's, /dev/shm is a fresh tmpfs (MPI's shared
# memory transports need one), and this checkout is bound at its own path, so `cd` to it works the
# same inside and out. The mounts are made in a mount namespace of their own (unshare): they vanish
# with the command, whether it passes, fails or is killed, and never show on the host or in another
# in-root.sh running at the same time.
set -euo pipefail
root=${1:?usage: in-root.sh ROOT COMMAND [ARGS...]}
shift
[ $# -gt 0 ] || { echo "in-root.sh: no command to run in $root: give one, e.g. in-root.sh $root node --version" >&2; exit 2; }
root=$(cd "$root" && pwd)
[ -x "$root/bin/sh" ] || { echo "in-root.sh: $root is not a Debian root (no bin/sh): make one with scripts/debian-root.sh trixie|forky" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "in-root.sh: chroot and mount need root: run it as root" >&2; exit 2; }
checkout=$(cd "$(dirname "$0")/.." && pwd)

if [ "${MPII_IN_ROOT_NS:-}" != "$root" ]; then
  # private propagation: nothing mounted below reaches the host's mounts, however they are shared
  exec env MPII_IN_ROOT_NS="$root" unshare --mount --propagation private -- bash "$0" "$root" "$@"
fi
unset MPII_IN_ROOT_NS

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mkdir -p "$root$checkout"
mount --bind "$checkout" "$root$checkout"
# the host's name resolution (apt inside reaches the mirror), in the namespace only
for f in /etc/resolv.conf /etc/hosts; do
  [ -e "$f" ] && [ -e "$root$f" ] && mount --bind "$f" "$root$f"
done

# a clean environment: the host's PATH or NODE_OPTIONS do not leak into the root's programs;
# OMPI_*, PRTE_*, MPII_* and CI pass through (the tests as root need OMPI_ALLOW_RUN_AS_ROOT*)
keep=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM="${TERM:-dumb}")
while IFS='=' read -r name _; do
  case $name in OMPI_* | PRTE_* | MPII_* | CI | DEBIAN_FRONTEND) keep+=("$name=${!name}") ;; esac
done < <(env)
# no exec: the namespace's mounts go with this shell, after the command
status=0
chroot "$root" /usr/bin/env -i "${keep[@]}" "$@" || status=$?
exit $status
