#!/usr/bin/env bash
# A real ctest run with passing tests and two failing ones, logged by -O, must give back the
# failing tests' output (each under its own heading) and none of the passing test's.
# Usage: test-failed-tails.sh <.ci/failed-tails> <scratch dir>
set -euo pipefail
tails=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir/src"
cat >"$dir/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(failed_tails_probe NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo output-of-passing")
add_test(NAME fails_first COMMAND sh -c "echo first-line; echo reason-one; exit 1")
add_test(NAME fails_second COMMAND sh -c "echo reason-two; exit 3")
# Ten tests or more: ctest pads the small numbers ("2/12 Test  #2:"), as in CI's run.
foreach(n RANGE 1 9)
    add_test(NAME passes_${n} COMMAND sh -c "echo output-of-passing")
endforeach()
CMAKE
cmake -S "$dir/src" -B "$dir/build" >/dev/null
ctest --test-dir "$dir/build" --output-on-failure -O "$dir/out.log" >/dev/null || true
got=$(bash "$tails" "$dir/out.log" 60)
expected="=== the end of fails_first's output
first-line
reason-one

=== the end of fails_second's output
reason-two
"
if [ "$got" != "$(printf '%s' "$expected")" ]; then
    echo "failed-tails printed:"
    printf '%s\n' "$got"
    echo "expected:"
    printf '%s\n' "$expected"
    exit 1
fi
# No log (ctest never ran) is not an error: nothing to print.
[ -z "$(bash "$tails" "$dir/missing.log")" ]
echo "failed-tails: both failed tests' output, nothing else"
