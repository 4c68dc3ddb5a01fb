# Sourced by scripts/stress.sh and scripts/busy.sh: the busy loops that
# load every core while tests run, so that a test depending on timing
# fails here rather than on a user's busy laptop.
#
# start_hogs starts STRESS_HOGS busy loops (default: one per core) and
# arranges for stop_hogs to run when the script exits, however it exits;
# on INT or TERM it also kills the command whose PID is in $testing.

hogs=()
testing=

stop_hogs() {
  for pid in "${hogs[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${hogs[@]}"; do
    wait "$pid" 2>/dev/null
  done
  hogs=()
}

start_hogs() {
  trap stop_hogs EXIT
  # On a signal, stop the command running too (it runs in the background,
  # so that the signal is handled at once, not when the command ends).
  trap 'if [ -n "$testing" ]; then kill "$testing" 2>/dev/null; fi; stop_hogs; exit 130' INT TERM
  local n=${STRESS_HOGS:-$(nproc)}
  for _ in $(seq "$n"); do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
}
