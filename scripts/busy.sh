#!/usr/bin/env bash
# Runs a command several times in a row under CPU contention: one busy
# loop per core (STRESS_HOGS sets how many; see scripts/hogs.sh) runs the
# whole time, as on a laptop that is doing other work. It is how the test
# script is checked to pass on a busy machine:
#
#   scripts/busy.sh [-runs N] COMMAND [ARG...]
#   scripts/busy.sh -runs 5 ./scripts/test.sh
#
# Default: 1 run. Each run's exit status, duration and the load average at
# its start and end are printed. It stops at the first failing run and
# exits 1; 0 when every run passed.
set -uo pipefail
cd "$(dirname "$0")/.."

# main runs the command. Being one function, it is read whole before it
# runs: editing or checking out this file during a run changes nothing.
main() {
  runs=1
  case ${1:-} in
    -runs) runs=$2; shift 2 ;;
    -h | -help | --help)
      sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0 ;;
  esac
  if [ $# -eq 0 ]; then
    echo "busy.sh: name the command to run, e.g. scripts/busy.sh -runs 5 ./scripts/test.sh (see -help)" >&2
    exit 2
  fi

  # shellcheck source=hogs.sh
  . scripts/hogs.sh
  start_hogs
  echo "== busy: ${#hogs[@]} busy loops running; $runs run(s) of $*"
  for i in $(seq "$runs"); do
    start=$SECONDS
    echo "== busy: run $i of $runs starts; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$@" &
    testing=$!
    wait "$testing"
    rc=$?
    testing=
    echo "== busy: run $i of $runs exited $rc after $((SECONDS - start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$rc" -ne 0 ]; then
      echo "== busy: run $i FAILED; $((i - 1)) consecutive run(s) passed before it"
      exit 1
    fi
  done
  echo "== busy: all $runs run(s) passed under contention"
}

main "$@"
exit
