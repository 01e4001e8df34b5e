#!/usr/bin/env bash
# The demo: point-to-point traffic of every kind on 4 ranks under Open MPI, through the monitor
# and trace-count tools, with their report (traffic per class, busiest pairs, matrix, calls).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/programs/bin
mpicc.openmpi -O2 -o test/programs/bin/monitor_p2p test/programs/monitor_p2p.c
if [ "$(id -u)" = 0 ]; then
  # Open MPI refuses to run as root unless told; mpii itself never sets this for you.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec node bin/mpii.js run --tools 'monitor,trace-count[top=8]' -np 4 --oversubscribe test/programs/bin/monitor_p2p
