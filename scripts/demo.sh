#!/usr/bin/env bash
# The demo: point-to-point traffic of every kind on 4 ranks under Open MPI, through the monitor,
# trace-count and profile tools, with their report (traffic per class, busiest pairs, matrix,
# calls, time per call site), then the same as a web page.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/programs/bin
mpicc.openmpi -O2 -g -o test/programs/bin/monitor_p2p test/programs/monitor_p2p.c
if [ "$(id -u)" = 0 ]; then
  # Open MPI refuses to run as root unless told; mpii itself never sets this for you.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
out=mpii-out/demo-$$
node bin/mpii.js run --out "$out" --tools 'monitor,trace-count[top=8],profile[top=8]' -np 4 --oversubscribe test/programs/bin/monitor_p2p
node bin/mpii.js report "$out" --html "$out/report.html" >/dev/null
