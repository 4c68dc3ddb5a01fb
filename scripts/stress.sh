#!/usr/bin/env bash
# Runs Go packages' tests under CPU contention, to find tests that depend on
# timing: every test -count times at each GOMAXPROCS of -cpu, under -race,
# while one busy loop per core competes for the CPU. Run it on the packages
# you touch when you change concurrent code.
#
#   scripts/stress.sh [-count N] [-cpu LIST] [-run REGEXP] [-skip REGEXP] [-timeout D] PACKAGE...
#
# PACKAGE is anything go test takes (./jsonrpc, ./server/..., or a package of
# another module of the workspace, such as ./taskstore/sqlite). Defaults:
# -count 20, -cpu 1,2,4, every test, -timeout 20m per package. Environment:
# STRESS_HOGS (default: the number of cores) sets how many busy loops run.
#
# The busy loops are started before the first package and killed when the
# script ends, however it ends. Each package's go test is bounded by its
# -timeout. The script goes on after a failing package and exits 1 if any
# failed, naming them.
#
# scripts/test.sh runs it in CI on the packages with the most concurrency,
# with a -count per package that keeps the pass within 10 to 15 minutes
# (the timings are there).
set -uo pipefail
cd "$(dirname "$0")/.."

# main runs the pass. Being one function, it is read whole before it runs:
# editing or checking out this file during a run changes nothing.
main() {
  count=20
  cpu=1,2,4
  run=
  skip=
  timeout=20m
  pkgs=()
  while [ $# -gt 0 ]; do
    case $1 in
      -count) count=$2; shift 2 ;;
      -cpu) cpu=$2; shift 2 ;;
      -run) run=$2; shift 2 ;;
      -skip) skip=$2; shift 2 ;;
      -timeout) timeout=$2; shift 2 ;;
      -h | -help | --help)
        sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0 ;;
      -*) echo "stress.sh: unknown flag $1 (see scripts/stress.sh -help)" >&2; exit 2 ;;
      *) pkgs+=("$1"); shift ;;
    esac
  done
  if [ ${#pkgs[@]} -eq 0 ]; then
    echo "stress.sh: name the packages to stress, e.g. scripts/stress.sh ./jsonrpc ./server (see -help)" >&2
    exit 2
  fi

  # shellcheck source=hogs.sh
  . scripts/hogs.sh
  start_hogs
  echo "== stress: ${#hogs[@]} busy loops running; go test -race -count=$count -cpu $cpu${run:+ -run $run}${skip:+ -skip $skip} on ${pkgs[*]}"

  failed=()
  for pkg in "${pkgs[@]}"; do
    start=$SECONDS
    echo "-- $pkg"
    go test -race -count="$count" -cpu "$cpu" ${run:+-run "$run"} ${skip:+-skip "$skip"} -timeout "$timeout" "$pkg" &
    testing=$!
    if ! wait "$testing"; then
      failed+=("$pkg")
    fi
    testing=
    echo "-- $pkg: $((SECONDS - start)) s"
  done

  if [ ${#failed[@]} -gt 0 ]; then
    echo "== stress: FAILED under contention: ${failed[*]}"
    exit 1
  fi
  echo "== stress: every package passed under contention"
}

main "$@"
exit
