#!/usr/bin/env bash
# Runs every test of the project: all Go modules of the workspace under -race,
# a bounded fuzz of every decoder (FUZZ_TARGETS), the official MCP conformance
# suite, and the interoperation tests with the TypeScript SDK (installed by
# the tests themselves into .cache/). CI calls this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Redis for the taskstore/redis tests: the tests start their own redis-server
# when none answers; make sure the binary exists on a fresh machine.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "== installing redis-server (Debian package) for the Redis task store tests"
  apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
fi

# Chromium for the interop test of a browser-based client (CORS).
if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing chromium (Debian package) for the browser interop test"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

for dir in $(go list -m -f '{{.Dir}}'); do
  echo "== go vet + go test -race: ${dir#$PWD/}"
  (cd "$dir" && go vet ./... && go test -race -count=1 -timeout 15m ./...)
done

# ---- fuzz stage (issue 16): every decoder, each for a bounded time ------
# One "package target" pair per line. FUZZTIME bounds each target; the
# default keeps the stage under 3 minutes in CI (11 targets x 10 s, plus
# building each package once).
FUZZ_TARGETS=(
  "./jsonrpc FuzzDecode"
  "./mcp FuzzDecodeParamsAndResults"
  "./mcp FuzzParamHeaders"
  "./mcp FuzzWithRelatedTask"
  "./transport FuzzStdioFraming"
  "./transport/sse FuzzReader"
  "./transport/streamable FuzzPostBody"
  "./transport/streamable FuzzHeaderValue"
  "./internal/schemacheck FuzzInstances"
  "./internal/schemacheck FuzzSchemas"
  "./auth FuzzParseChallenges"
)
for entry in "${FUZZ_TARGETS[@]}"; do
  read -r pkg target <<<"$entry"
  echo "== fuzz: $target in $pkg (${FUZZTIME:-10s})"
  go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-10s}"
done
# ---- end of the fuzz stage ---------------------------------------------

echo "== official MCP conformance suite"
conformance/run.sh
