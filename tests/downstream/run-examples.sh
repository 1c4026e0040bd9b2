#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# ctest examples_grcc: every examples/*.grc compiled with grcc against a fresh install
# of the build (GRC blocks, module and libraries from the prefix only), then run
# headless: a Python flowgraph with Debian's /usr/bin/python3, a C++ one built as the
# CMake project grcc writes, with CMAKE_PREFIX_PATH=<prefix>. Each must end by itself
# (the examples stream finite bursts) with exit status 0, no traceback and no error
# logged. A .grc that grcc rejects or reports errors in fails the test; so does one
# examples/README omits.
# Usage: run-examples.sh <source dir> <build dir>
. "$(dirname "$0")/common.sh"
gr_rdma_install "$1" "$2"
cd "$WORK"
libdir="$PREFIX/lib/$(gcc -dumpmachine)"
export LD_LIBRARY_PATH="$libdir"
PYTHONPATH="$(echo "$PREFIX"/lib/python3*/dist-packages)"
export PYTHONPATH
export GRC_BLOCKS_PATH="$PREFIX/share/gnuradio/grc/blocks"

# run <log> <command...>: at most 60 s; exit 0, no traceback, no error in the log.
run() {
    local log=$1
    shift
    local status=0
    timeout --kill-after=5 60 "$@" >"$log" 2>&1 || status=$?
    cat "$log"
    [ "$status" -ne 124 ] || fail "$* still ran after 60 s"
    [ "$status" -eq 0 ] || fail "$* exited with status $status"
    if grep -qE 'Traceback|:error:' "$log"; then
        fail "$* logged an error"
    fi
}

shopt -s nullglob
examples=("$SRC"/examples/*.grc)
[ ${#examples[@]} -gt 0 ] || fail "no examples/*.grc"
languages=""
for grc in "${examples[@]}"; do
    name=$(basename "$grc")
    grep -qF "$name" "$SRC/examples/README" || fail "examples/README does not list $name"
    read -r id language < <(/usr/bin/python3 -c '
import sys, yaml
o = yaml.safe_load(open(sys.argv[1]))["options"]["parameters"]
print(o["id"], o["output_language"])' "$grc")
    languages="$languages $language"

    step "grcc $name ($language)"
    grcc -o grc-out "$grc" >"grcc-$id.log" 2>&1 ||
        { cat "grcc-$id.log"; fail "grcc rejected $name"; }
    # grcc drops what it cannot load (a connection to a port the block lacks) with a
    # message, and still exits 0.
    if grep -qE 'Error|Traceback' "grcc-$id.log"; then
        cat "grcc-$id.log"
        fail "grcc reported errors in $name"
    fi

    case $language in
    python)
        step "run $id.py"
        run "run-$id.log" /usr/bin/python3 "grc-out/$id.py"
        ;;
    cpp)
        step "build $id against $PREFIX"
        project=grc-out/$id
        cmake -S "$project" -B "$project/build" -DCMAKE_PREFIX_PATH="$PREFIX" \
              >"cmake-$id.log" 2>&1 ||
            { cat "cmake-$id.log"; fail "configuring $id failed"; }
        grep -q "^gnuradio-rdma_DIR:PATH=$PREFIX/" "$project/build/CMakeCache.txt" ||
            fail "$id did not find gnuradio-rdma in $PREFIX"
        cmake --build "$project/build" -j2
        step "run $id"
        run "run-$id.log" "$project/build/$id"
        ;;
    *) fail "$name: output_language $language is neither python nor cpp" ;;
    esac
done
for language in python cpp; do
    [[ " $languages " == *" $language "* ]] || fail "no example generates $language"
done
echo "examples_grcc: OK (${#examples[@]} examples)"
