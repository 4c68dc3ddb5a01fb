#!/usr/bin/env bash
# Installs the pinned interoperation peers (Node.js 22, @modelcontextprotocol/sdk,
# @modelcontextprotocol/server-everything; see package.json and
# package-lock.json here) into .cache/interop. Idempotent. Prints the
# installed node_modules directory on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../conformance/install.sh" "$here" interop
