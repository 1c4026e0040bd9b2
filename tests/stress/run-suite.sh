#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The stress check (docs/testing.md, "On a busy machine"): the test suite (every ctest
# test but rxe_guest and debian_package), RUNS times, idle or beside two busy loops,
# and how many runs passed. Tests of behaviour must pass on a busy machine: the ones
# whose answer depends on speed are benchmarks (bench/), not tests.
#
#   tests/stress/run-suite.sh [--loaded] [--runs N] [--jobs J] [--build DIR]
#                             [--log DIR] [-- CTEST_ARGS...]
#
# --loaded: two busy loops (sh -c 'while :; do :; done') run beside the suite, killed
# when it ends. --jobs: ctest -j (default 2, as README's test command). --log: where
# each run's ctest output goes (default a temporary directory, printed). CTEST_ARGS
# narrow the suite (-R REGEX). Prints a line per run and a summary; exits 0 when every
# run passed.
set -uo pipefail

loaded=0 runs=10 jobs=2 build="" logdir="" extra=()
here=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
    case "$1" in
    --loaded) loaded=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --log) logdir=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run-suite.sh: unknown argument $1 (see the head of this script)" >&2; exit 2 ;;
    esac
done
build=${build:-$here/build}
[ -f "$build/CTestTestfile.cmake" ] ||
    { echo "run-suite.sh: no test build in $build: run .ci/build first" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run-suite.sh: --runs needs a count >= 1" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run-suite.sh: --jobs needs a count >= 1" >&2; exit 2; }
logdir=${logdir:-$(mktemp -d /tmp/gr-rdma-stress.XXXXXX)}
mkdir -p "$logdir"

loops=()
stop_loops() {
    [ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null
    loops=()
}
trap stop_loops EXIT INT TERM

mode=idle
if [ "$loaded" -eq 1 ]; then
    mode="beside two busy loops"
    for _ in 1 2; do
        sh -c 'while :; do :; done' &
        loops+=($!)
    done
fi

echo "stress check: $runs run(s) of the suite in $build, ctest -j$jobs, $mode; logs in $logdir"
passed=0 fastest="" slowest=""
for run in $(seq 1 "$runs"); do
    log=$logdir/run-$run.log
    start=$(date +%s)
    ctest --test-dir "$build" -j"$jobs" -E '^(rxe_guest|debian_package)$' \
        --output-on-failure "${extra[@]}" >"$log" 2>&1
    status=$?
    seconds=$(($(date +%s) - start))
    [ -z "$fastest" ] || [ "$seconds" -lt "$fastest" ] && fastest=$seconds
    [ -z "$slowest" ] || [ "$seconds" -gt "$slowest" ] && slowest=$seconds
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "run $run: passed in $seconds s"
    else
        failed=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (\(Failed\|Timeout\|SEGFAULT\|Exception\|Not Run\).*/\1/p' "$log" |
                 tr '\n' ' ')
        echo "run $run: FAILED in $seconds s: ${failed:-see $log}"
    fi
done
stop_loops
echo "stress check: $passed of $runs run(s) passed $mode, $fastest..$slowest s a run"
[ "$passed" -eq "$runs" ]
