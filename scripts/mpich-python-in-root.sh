#!/usr/bin/env bash
# Gives a Debian root a Python whose mpi4py runs on the root's MPICH, for measuring and testing
# Python programs on MPICH 4.2 and 5.0 by hand:
#
#   bash scripts/mpich-python-in-root.sh /var/cache/mpii-roots/forky
#   # then, inside: MPI4PY_MPIABI=mpich /opt/py311-mpich/bin/python app.py
#
# Why a copy: Debian's python3-mpi4py is built for Open MPI, Debian's mirror here serves no
# source packages to build mpi4py from, and the package registry reached here has mpi4py only as
# a wheel for this machine's Python 3.11 (the one scripts/setup.sh puts in .venv-mpich), while
# Debian 13 has Python 3.13 and forky 3.14. So this machine's python3.11 and its standard library
# go into the root, and a virtual environment there, /opt/py311-mpich, gets the wheel's mpi4py.
# The wheel carries a module for each MPI ABI and loads MPICH's libmpi.so.12 when
# MPI4PY_MPIABI=mpich: the MPI, its launcher and mpii are the root's own.
set -euo pipefail
root=${1:?usage: mpich-python-in-root.sh ROOT}
checkout=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(ls -d "$checkout"/.venv-mpich/lib/python3.11/site-packages/mpi4py 2>/dev/null || true)
[ -n "$wheel" ] || { echo "mpich-python-in-root.sh: no mpi4py in $checkout/.venv-mpich: run scripts/setup.sh first" >&2; exit 2; }
[ -x /usr/bin/python3.11 ] || { echo "mpich-python-in-root.sh: /usr/bin/python3.11 is missing: this needs Debian 12's python3.11" >&2; exit 2; }
[ -x "$root/bin/sh" ] || { echo "mpich-python-in-root.sh: $root is not a Debian root: make one with scripts/debian-root.sh" >&2; exit 2; }

cp -a /usr/bin/python3.11 "$root/usr/bin/python3.11"
rm -rf "$root/usr/lib/python3.11" && cp -a /usr/lib/python3.11 "$root/usr/lib/python3.11"
# its C headers too (python3-dev, which scripts/setup.sh installs): mpii's Python call-site helper
# is built against the interpreter's own
for d in /usr/include/python3.11 /usr/include/x86_64-linux-gnu/python3.11; do
  [ -d "$d" ] && rm -rf "$root$d" && mkdir -p "$(dirname "$root$d")" && cp -a "$d" "$root$d"
done
# the environment is made inside (its python links to the root's path), then filled from here:
# the wheel's mpi4py, and numpy and mpi4py-fft, which test/python.test.ts imports (Debian 12's
# builds for 3.11: numpy needs libblas.so.3, mpi4py-fft libfftw3, both in the root for its own)
bash "$checkout/scripts/in-root.sh" "$root" sh -c 'rm -rf /opt/py311-mpich && /usr/bin/python3.11 -m venv --without-pip /opt/py311-mpich'
site="$root/opt/py311-mpich/lib/python3.11/site-packages"
cp -a "$wheel" "$wheel"-*.dist-info /usr/lib/python3/dist-packages/numpy /usr/lib/python3/dist-packages/mpi4py_fft "$site/"
bash "$checkout/scripts/in-root.sh" "$root" env MPI4PY_MPIABI=mpich /opt/py311-mpich/bin/python -c \
  'import numpy, mpi4py_fft; from mpi4py import MPI; print("mpich-python-in-root.sh: mpi4py on", MPI.Get_library_version().split(chr(10))[0])'
