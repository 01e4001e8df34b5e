#!/usr/bin/env bash
# Makes (or reuses) a root of a current Debian release with both MPIs, the compilers, Python with
# mpi4py and that release's Node, from Debian's packages, and prints its path:
#
#   bash scripts/debian-root.sh trixie     Debian 13: Open MPI 5.0, MPICH 4.2, Node 20
#   bash scripts/debian-root.sh forky      Debian testing: Open MPI 6.0, MPICH 5.0, Node 24
#
# Then run the tests inside with scripts/in-root.sh (docs/testing.md). As root (debootstrap and
# chroot need it). The root is kept in /var/cache/mpii-roots/RELEASE and reused while it was made
# from the same release, mirror and package list (its stamp); a change of one makes it anew.
# MPII_ROOTS=DIR keeps the roots elsewhere. The mirror is the one this machine's apt already uses.
set -euo pipefail
release=${1:?usage: debian-root.sh trixie|forky}
here=$(cd "$(dirname "$0")" && pwd)
case $release in
  trixie) script=trixie ;;
  # forky has no debootstrap script of its own in older debootstraps: it is laid out as sid is
  forky) script=sid ;;
  *) echo "debian-root.sh: no root for '$release': trixie (Debian 13) or forky (Debian testing)" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "debian-root.sh: debootstrap and chroot need root: run it as root" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "debian-root.sh: debootstrap is not installed: apt-get install debootstrap" >&2; exit 2; }

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
# not minutes of debootstrap again; any other change makes the root anew
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
echo "debian-root.sh: making $root from $mirror (debootstrap $release, then apt: several minutes)" >&2
# the downloaded packages are kept beside the roots: remaking a root reads them again
cache=$base/debs-$release
mkdir -p "$cache"
log=$base/$release.log
# dpkg in the root (debootstrap's and apt's) without an fsync per file, and without the
# documentation, manual pages and translations: a root that is remade rather than repaired after a
# crash, and whose tests read none of them. Minutes less of dpkg on a small machine.
mkdir -p "$root.new/etc/dpkg/dpkg.cfg.d"
cat >"$root.new/etc/dpkg/dpkg.cfg.d/01mpii-root" <<'CFG'
force-unsafe-io
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
CFG
# a minimal base first, then the packages with apt inside: debootstrap's --include resolver does
# not follow virtual packages (trixie's libltdl-dev, under libopenmpi-dev, needs automake-1.17,
# which only automake provides) and leaves such a root unconfigured
if ! debootstrap --variant=minbase --cache-dir="$cache" "$release" "$root.new" "$mirror" \
  "/usr/share/debootstrap/scripts/$script" >"$log" 2>&1; then
  echo "debian-root.sh: debootstrap failed: its last lines (all of it in $log):" >&2
  tail -n 15 "$log" >&2
  exit 1
fi

t1=$(date +%s)
# inside: apt's sources for this release, services that never start, the packages
echo "deb $mirror $release main" >"$root.new/etc/apt/sources.list"
printf '#!/bin/sh\nexit 101\n' >"$root.new/usr/sbin/policy-rc.d"
chmod +x "$root.new/usr/sbin/policy-rc.d"
# a testing release's Release file may be older than its Valid-Until where the mirror is a snapshot
echo 'Acquire::Check-Valid-Until "false";' >"$root.new/etc/apt/apt.conf.d/99mpii-valid-until"
cp -l "$cache"/*.deb "$root.new/var/cache/apt/archives/" 2>/dev/null || cp "$cache"/*.deb "$root.new/var/cache/apt/archives/" 2>/dev/null || true
if ! DEBIAN_FRONTEND=noninteractive bash "$here/in-root.sh" "$root.new" sh -c "
  apt-get -qq update && apt-get -y -qq -f install && apt-get -y -qq --no-install-recommends install ${packages[*]}" >>"$log" 2>&1; then
  echo "debian-root.sh: installing the packages in $root.new failed: its last lines (all of it in $log):" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
# the packages apt fetched go to the cache too, then out of the root
cp -n "$root.new"/var/cache/apt/archives/*.deb "$cache/" 2>/dev/null || true
rm -f "$root.new"/var/cache/apt/archives/*.deb
echo "$stamp_text" >"$root.new/.mpii-root-stamp"
rm -rf --one-file-system "$root"
mv "$root.new" "$root"
echo "debian-root.sh: made $root in $(($(date +%s) - t0)) s (debootstrap $((t1 - t0)) s, the packages $(($(date +%s) - t1)) s), $(du -sh --one-file-system "$root" | cut -f1)" >&2
echo "$root"
