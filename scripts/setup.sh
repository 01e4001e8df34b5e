#!/usr/bin/env bash
# Installs what mpii needs on a Debian machine (as root): both MPIs, a C toolchain, Valgrind (its
# client-request headers for memcheck, and the Valgrind engine tests), the npm
# dependencies pinned in package-lock.json, then compiles the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# gfortran: the Fortran tests; iproute2 + util-linux (ip netns, unshare): the multi-host tests; diffutils: install --dry-run; valgrind: memcheck
apt-get install -y -qq openmpi-bin libopenmpi-dev mpich libmpich-dev build-essential binutils procps python3 gfortran iproute2 util-linux diffutils valgrind >/dev/null
# Slurm (test/slurm.test.ts starts its own munged, slurmctld and slurmd from these packages): the
# packages' own services must not start, so policy-rc.d forbids it while they are installed
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
npm ci --no-audit --no-fund
# the HTML report's tests render it in headless Chromium (driven by playwright-core from npm)
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
npm run build
