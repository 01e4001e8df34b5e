#!/usr/bin/env bash
# Installs what mpii needs on a Debian machine: both MPIs, a C toolchain, Valgrind (its
# client-request headers for memcheck, and the Valgrind engine tests), Slurm and Chromium for the
# tests (system packages, as root), then the npm dependencies pinned in package-lock.json and the
# compiled CLI (as you).
#
#   bash scripts/setup.sh          as root: everything; as a user: the system part through sudo
#   sudo bash scripts/setup.sh     also works: the npm part then runs as $SUDO_USER again
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$script")/.."

system_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # gfortran: the Fortran tests; iproute2 + util-linux (ip netns, unshare; script): the multi-host and progress tests; diffutils: install --dry-run; valgrind: memcheck
  # groff-base + man-db: the man page renders without warnings; zsh: the zsh completion is valid zsh
  # clang-format: the C under preload/ keeps its checked-in style (npm run lint, in npm test)
  # libc6-dbg: a distribution debug package (files by build-id), which a memcheck test reads libc's lines from
  # mmdebstrap: the roots of current Debian releases the tests also run in (scripts/test-in-roots.sh)
  apt-get install -y -qq openmpi-bin libopenmpi-dev mpich libmpich-dev build-essential binutils procps python3 gfortran iproute2 util-linux diffutils valgrind libc6-dbg groff-base man-db zsh clang-format mmdebstrap >/dev/null
  # Slurm (test/slurm.test.ts starts its own munged, slurmctld and slurmd from these packages): the
  # packages' own services must not start, so policy-rc.d forbids it while they are installed
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
  # the HTML report's tests render it in headless Chromium (driven by playwright-core from npm)
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
  # Python programs (test/python.test.ts): the distribution's mpi4py is built for Open MPI and runs
  # with /usr/bin/python3; python3-dev: the Python call-site helper; mpi4py-fft: a real mpi4py package
  apt-get install -y -qq --no-install-recommends python3-mpi4py python3-numpy python3-dev python3-venv python3-mpi4py-fft >/dev/null
  # applications nobody here wrote (test/apps.test.ts): LAMMPS; NWChem for both MPIs
  apt-get install -y -qq --no-install-recommends lammps nwchem-openmpi nwchem-mpich >/dev/null
}

if [ "${1:-}" = --system-only ]; then
  system_packages
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  system_packages
elif command -v sudo >/dev/null 2>&1; then
  echo "setup.sh: installing the system packages with sudo" >&2
  sudo -- bash "$script" --system-only
else
  echo "setup.sh: the system packages need root: run this script as root, or install sudo and run it again as a user allowed to use it" >&2
  exit 1
fi

# the npm part belongs to whoever owns the checkout: under `sudo bash scripts/setup.sh`, that user
as_user=()
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  as_user=(sudo -u "$SUDO_USER" --)
fi
# MPICH's mpi4py: mpi4py 4 from the package registry in a virtual environment that also sees the
# distribution's packages (numpy, mpi4py-fft); its wheel carries a module for each MPI ABI and picks
# one at import time (MPI4PY_MPIABI=mpich)
if ! .venv-mpich/bin/python -c 'import mpi4py, mpi4py_fft, sys; sys.exit(int(mpi4py.__version__.split(".")[0]) < 4)' 2>/dev/null; then
  rm -rf .venv-mpich
  if ! { "${as_user[@]}" /usr/bin/python3 -m venv --system-site-packages .venv-mpich && "${as_user[@]}" .venv-mpich/bin/pip install -q --retries 1 --timeout 30 'mpi4py>=4'; }; then
    echo "setup: mpi4py 4 for MPICH could not be installed from the package registry: the MPICH Python tests will fail saying so" >&2
  fi
fi
"${as_user[@]}" npm ci --no-audit --no-fund
"${as_user[@]}" npm run build
