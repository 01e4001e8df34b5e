#!/usr/bin/env bash
# Makes (or reuses) a root of a current Debian release with both MPIs, the compilers, Python with
# mpi4py and that release's Node, from Debian's packages, and prints its path:
#
#   bash scripts/debian-root.sh trixie     Debian 13: Open MPI 5.0, MPICH 4.2, Node 20
#   bash scripts/debian-root.sh forky      Debian testing: Open MPI 6.0, MPICH 5.0, Node 24
#
# Then run the tests inside with scripts/in-root.sh (docs/testing.md). As root (mmdebstrap and
# chroot need it). The root is kept in /var/cache/mpii-roots/RELEASE and reused while it was made
# from the same release, mirror and package list (its stamp); a change of one makes it anew.
# MPII_ROOTS=DIR keeps the roots elsewhere. The mirror is the one this machine's apt already uses.
set -euo pipefail
release=${1:?usage: debian-root.sh trixie|forky}
here=$(cd "$(dirname "$0")" && pwd)
case $release in
  trixie | forky) ;;
  *) echo "debian-root.sh: no root for '$release': trixie (Debian 13) or forky (Debian testing)" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "debian-root.sh: mmdebstrap and chroot need root: run it as root" >&2; exit 2; }
command -v mmdebstrap >/dev/null || { echo "debian-root.sh: mmdebstrap is not installed: apt-get install mmdebstrap" >&2; exit 2; }

# what the tests inside need: both MPIs and their compilers (C, Fortran), binutils (nm, readelf:
# detection), procps (ps: the launchers' tests), Python with mpi4py and numpy (Open MPI's
# mpi4py), python3-dev (Python call sites), Valgrind and libc6-dbg (memcheck), diffutils
# (install --dry-run), util-linux, mpi4py-fft (a real mpi4py program), and the release's own Node
packages=(openmpi-bin libopenmpi-dev mpich libmpich-dev build-essential gfortran binutils procps
  python3 python3-dev python3-mpi4py python3-numpy python3-mpi4py-fft nodejs valgrind libc6-dbg
  diffutils util-linux)

# the Debian mirror of this machine's apt sources (deb822 or one-line), else Debian's own
mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
  sed -n -E 's,^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+://[^[:space:]]*/debian)/?([[:space:]].*)?$,\3,p' | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

base=${MPII_ROOTS:-/var/cache/mpii-roots}
root=$base/$release
stamp_text="release=$release mirror=$mirror packages=${packages[*]}"
if [ -f "$root/.mpii-root-stamp" ] && [ "$(cat "$root/.mpii-root-stamp")" = "$stamp_text" ]; then
  echo "debian-root.sh: reusing $root ($(du -sh --one-file-system "$root" | cut -f1))" >&2
  echo "$root"
  exit 0
fi
# packages only added to the list: installed into the root as it is (what a new root would get),
# not a new root; any other change makes the root anew
old_stamp=$(cat "$root/.mpii-root-stamp" 2>/dev/null || true)
if [ -n "$old_stamp" ] && [ "${old_stamp%% packages=*}" = "release=$release mirror=$mirror" ]; then
  read -r -a old_packages <<<"${old_stamp#* packages=}"
  added=()
  for p in "${packages[@]}"; do
    [[ " ${old_packages[*]} " == *" $p "* ]] || added+=("$p")
  done
  removed=0
  for p in "${old_packages[@]}"; do
    [[ " ${packages[*]} " == *" $p "* ]] || removed=1
  done
  if [ $removed -eq 0 ] && [ ${#added[@]} -gt 0 ] &&
    DEBIAN_FRONTEND=noninteractive bash "$here/in-root.sh" "$root" sh -c \
      "apt-get -qq update && apt-get -y -qq --no-install-recommends install ${added[*]} && apt-get clean" >>"$base/$release.log" 2>&1; then
    echo "$stamp_text" >"$root/.mpii-root-stamp"
    echo "debian-root.sh: added ${added[*]} to $root" >&2
    echo "$root"
    exit 0
  fi
fi

# a root being made or replaced must have nothing mounted in it (an in-root.sh still running)
busy() { grep -q " $1[/ ]" /proc/self/mountinfo; }
for d in "$root" "$root.new"; do
  if [ -d "$d" ] && busy "$d"; then
    echo "debian-root.sh: $d has mounts in it (an in-root.sh still running?): stop that first" >&2
    exit 1
  fi
done
rm -rf --one-file-system "$root.new"
mkdir -p "$base"
t0=$(date +%s)
echo "debian-root.sh: making $root from $mirror (mmdebstrap $release: a few minutes)" >&2
log=$base/$release.log
# mmdebstrap: apt resolves and fetches the packages (in parallel; debootstrap fetched its base one
# file at a time, 425 of a root's 689 s here), and dpkg unpacks them without an fsync per file and
# without the documentation, manual pages and translations: a root that is remade rather than
# repaired after a crash, and whose tests read none of them. A testing release's Release file may
# be older than its Valid-Until where the mirror is a snapshot.
excluded=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*')
if ! mmdebstrap --variant=minbase --include="$(
  IFS=,
  echo "${packages[*]}"
)" --aptopt='Acquire::Check-Valid-Until "false"' --dpkgopt=force-unsafe-io "${excluded[@]}" \
  "$release" "$root.new" "deb $mirror $release main" >"$log" 2>&1; then
  echo "debian-root.sh: mmdebstrap failed: its last lines (all of it in $log):" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
# services that never start when packages are added later
printf '#!/bin/sh\nexit 101\n' >"$root.new/usr/sbin/policy-rc.d"
chmod +x "$root.new/usr/sbin/policy-rc.d"
echo "$stamp_text" >"$root.new/.mpii-root-stamp"
rm -rf --one-file-system "$root"
mv "$root.new" "$root"
echo "debian-root.sh: made $root in $(($(date +%s) - t0)) s, $(du -sh --one-file-system "$root" | cut -f1)" >&2
echo "$root"
