#!/usr/bin/env bash
# The demo: a token ring on 4 ranks under Open MPI through the trace-count tool, with its report.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/programs/bin
mpicc.openmpi -O2 -o test/programs/bin/ring test/programs/ring.c
if [ "$(id -u)" = 0 ]; then
  # Open MPI refuses to run as root unless told; mpii itself never sets this for you.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec node bin/mpii.js run --tools trace-count -np 4 --oversubscribe test/programs/bin/ring 5
