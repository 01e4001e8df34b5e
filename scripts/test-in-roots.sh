#!/usr/bin/env bash
# Runs `node scripts/run-tests.mjs roots` (every tool, QMPI, Python, Fortran, MPI_T, the launchers)
# inside a root of each current Debian release, on that release's MPIs and Node, with this
# checkout bound at its own path (docs/testing.md):
#
#   bash scripts/test-in-roots.sh                 Debian 13 (trixie) and Debian forky
#   bash scripts/test-in-roots.sh forky           one of them
#   bash scripts/test-in-roots.sh trixie -- --test-name-pattern=ring    options for node --test
#   bash scripts/test-in-roots.sh --layer roots-ci    the part CI runs (run-tests.mjs's ROOTS_CI)
#
# As root. The roots are made (or reused) by scripts/debian-root.sh, both at once: mmdebstrap waits
# on the mirror more than on the cores; then their tests run, both at once too. The
# checkout must be built (npm run build): its dist/ and node_modules/ are JavaScript and koffi's
# N-API binary, which run on either Node.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
releases=()
extra=()
layer=roots
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; extra=("$@"); break ;;
    --layer) layer=${2:?test-in-roots.sh: --layer needs roots or roots-ci}; shift 2 ;;
    trixie | forky) releases+=("$1"); shift ;;
    *) echo "test-in-roots.sh: no release '$1': trixie, forky, or neither for both" >&2; exit 2 ;;
  esac
done
case $layer in roots | roots-ci) ;; *) echo "test-in-roots.sh: no layer '$layer': roots (every file of ROOTS) or roots-ci (CI's part)" >&2; exit 2 ;; esac
[ ${#releases[@]} -gt 0 ] || releases=(trixie forky)
[ -f dist/src/cli/main.js ] || { echo "test-in-roots.sh: the checkout is not built: run npm ci and npm run build first" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
pids=()
for r in "${releases[@]}"; do
  bash scripts/debian-root.sh "$r" >"$work/$r.path" &
  pids+=($!)
done
made=0
for p in "${pids[@]}"; do wait "$p" || made=1; done
[ $made -eq 0 ] || { echo "test-in-roots.sh: a root could not be made (above)" >&2; exit 1; }
echo "test-in-roots.sh: roots ready in $(($(date +%s) - t0)) s"

# each release's tests in its own root, all at once: the tests mostly wait on launchers and rank
# start, so two roots' runs share the 2 cores better than one after the other; each run's output
# is kept apart and printed whole when it ends
test_release() {
  local r=$1 root t1 versions
  root=$(cat "$work/$r.path")
  t1=$(date +%s)
  # what the release brings, as its own tools say it
  versions=$(bash scripts/in-root.sh "$root" sh -c \
    'echo "Node $(node --version), $(mpirun.openmpi --version 2>/dev/null | head -1), $(mpichversion 2>/dev/null | sed -n "s/^MPICH Version:[[:space:]]*/MPICH /p"), $(python3 -c "import mpi4py; print(\"mpi4py\", mpi4py.__version__)")"')
  echo "test-in-roots.sh: $r: $versions"
  # the roots' python3-mpi4py is Open MPI's, and no mpi4py for MPICH and their Python is reachable
  # (by hand: scripts/mpich-python-in-root.sh, then MPII_TEST_PYTHON_MPIS=openmpi,mpich and
  # MPII_TEST_MPICH_PYTHON=/opt/py311-mpich/bin/python)
  if OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPII_TEST_PYTHON_MPIS=${MPII_TEST_PYTHON_MPIS:-openmpi} \
    bash scripts/in-root.sh "$root" sh -c 'cd "$1" && shift && exec node scripts/run-tests.mjs "$@"' sh "$checkout" "$layer" "${extra[@]}"; then
    echo "test-in-roots.sh: $r: passed in $(($(date +%s) - t1)) s"
  else
    echo "test-in-roots.sh: $r: FAILED after $(($(date +%s) - t1)) s"
    return 1
  fi
}
pids=()
for r in "${releases[@]}"; do
  test_release "$r" >"$work/$r.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!releases[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$work/${releases[$i]}.log"
done
echo "test-in-roots.sh: ${releases[*]} in $(($(date +%s) - t0)) s in all"
exit $status
