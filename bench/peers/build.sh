#!/bin/sh
# bench/peers/build.sh FLAVOR PREFIX MPIP_SRC PNMPI_SRC - builds the peers of bench/peers.mjs for
# one MPI from source directories the user provides (the repository holds no third-party code;
# where to get them: bench/README.md, "peers.mjs"). Either source may be '-': that peer is not built.
#   mpiP  (a checkout of https://github.com/LLNL/mpiP, measured at 8ff38c3)
#         -> PREFIX/lib/libmpiP.so   a PMPI profiler, preloaded
#   PnMPI (a checkout of https://github.com/LLNL/PnMPI with its git submodules, measured at
#         8b93408) -> PREFIX/lib/libpnmpi.so and PREFIX/modules/empty.so, PnMPI's own no-op
#         module (every MPI function passed on), PREFIX/pnmpi.conf loading it
# FLAVOR: openmpi or mpich. Needs the MPI's compiler wrappers, make, cmake and a Python 2 for
# PnMPI's wrapper generator (python2 on PATH; with pyenv, a 2.7 version is picked up).
# PnMPI is built without its debug logging and assertions (-DENABLE_DEBUG=OFF): its fastest form.
# The sources are copied first: their checkouts are never written.
set -eu
usage='usage: build.sh openmpi|mpich PREFIX MPIP_SRC|- PNMPI_SRC|-'
flavor=${1:?$usage}
prefix=${2:?$usage}
mpip_src=${3:?$usage}
pnmpi_src=${4:?$usage}
case $flavor in
  openmpi|mpich) cc=mpicc.$flavor cxx=mpicxx.$flavor f77=mpif90.$flavor ;;
  *) echo "build.sh: unknown MPI '$flavor' (openmpi or mpich)" >&2; exit 2 ;;
esac
for d in "$mpip_src" "$pnmpi_src"; do
  [ "$d" = - ] || [ -d "$d/src" ] || [ -f "$d/configure" ] || { echo "build.sh: $d is not a source checkout of mpiP or PnMPI" >&2; exit 2; }
done
mkdir -p "$prefix/lib" "$prefix/modules"
prefix=$(cd "$prefix" && pwd)
work=$prefix/src
rm -rf "$work"
mkdir -p "$work"
jobs=${JOBS:-2}

# mpiP: no libbfd/libunwind (call sites as addresses; glibc backtrace()), everything else default
build_mpip() {
  cp -R "$mpip_src" "$work/mpiP"
  (
    cd "$work/mpiP"
    # its wrapper generator records who built it
    export LOGNAME="${LOGNAME:-$(id -un)}"
    ./configure --with-cc="$cc" --with-cxx="$cxx" --with-f77="$f77" --disable-bfd --disable-libunwind >configure.log 2>&1 \
      || { tail -20 configure.log >&2; exit 1; }
    make shared >make.log 2>&1 || { tail -20 make.log >&2; exit 1; }
  )
  cp "$work/mpiP/libmpiP.so" "$prefix/lib/"
}

# PnMPI: the core and the empty module only
build_pnmpi() {
  python2_works() { python2 -c 'import sys; sys.exit(sys.version_info[0] != 2)' >/dev/null 2>&1; }
  if ! python2_works && command -v pyenv >/dev/null 2>&1; then
    v=$(pyenv versions --bare 2>/dev/null | grep '^2\.7' | tail -1 || true)
    [ -n "$v" ] && export PYENV_VERSION="$v:system"
  fi
  python2_works || { echo "build.sh: PnMPI's wrapper generator needs Python 2 (python2 on PATH)" >&2; exit 1; }
  cp -R "$pnmpi_src" "$work/PnMPI"
  mkdir -p "$work/pnmpi-build"
  # PnMPI wraps every function mpi.h declares and its library refers to each one's PMPI_ entry.
  # Debian's MPICH 4.0.2 declares MPI_Status_f082f, _f2f08 and _f082c but its library has no
  # PMPI_ for them, so libpnmpi.so would not load: stand-ins for those the library lacks (none of
  # the programs here calls them; called, they return MPI_ERR_OTHER's value in MPICH, 15).
  link=
  libdir=$("$cc" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)
  lib=$("$cc" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-l\(mpi\|mpich\)$/\1/p' | head -1)
  so=$(ls "${libdir:-/usr/lib}/lib${lib:-mpi}.so" 2>/dev/null || true)
  stubs=
  for f in PMPI_Status_f082f PMPI_Status_f2f08 PMPI_Status_f082c; do
    if [ -n "$so" ] && ! nm -D --defined-only "$so" | grep -q " $f\$"; then
      stubs="$stubs
  int $f(const void *a, void *b) { (void)a; (void)b; return 15; }"
    fi
  done
  if [ -n "$stubs" ]; then
    printf '/* stand-ins for PMPI_ functions mpi.h declares and %s lacks */%s\n' "$so" "$stubs" >"$work/pmpi-missing.c"
    "$cc" -c -fPIC -O2 -o "$work/pmpi-missing.o" "$work/pmpi-missing.c"
    link="$work/pmpi-missing.o"
  fi
  (
    cd "$work/pnmpi-build"
    cmake "$work/PnMPI" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
      -DMPI_C_COMPILER="$cc" -DMPI_CXX_COMPILER="$cxx" -DENABLE_FORTRAN=OFF -DENABLE_DEBUG=OFF -DENABLE_TESTS=OFF -DCMAKE_SHARED_LINKER_FLAGS="$link" \
      >cmake.log 2>&1 || { tail -20 cmake.log >&2; exit 1; }
    make -j"$jobs" pnmpi empty >make.log 2>&1 || { tail -20 make.log >&2; exit 1; }
  )
  cp "$(find "$work/pnmpi-build/src/pnmpi" -name 'libpnmpi.so*' -type f | head -1)" "$prefix/lib/libpnmpi.so"
  cp "$(find "$work/pnmpi-build/src/modules/empty" -name 'empty*.so' -type f | head -1)" "$prefix/modules/empty.so"
  echo "module empty" >"$prefix/pnmpi.conf"
}

# (not `[ … ] || build_…`: set -e does not apply inside a function called from an || list)
if [ "$mpip_src" != - ]; then build_mpip; fi
if [ "$pnmpi_src" != - ]; then build_pnmpi; fi
rm -rf "$work"
echo "$prefix"
