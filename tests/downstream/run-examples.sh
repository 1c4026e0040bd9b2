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
# logged. A QT GUI flowgraph (generate_options qt_gui) runs until stopped: it runs on
# Qt's offscreen platform, must still run after $UNTIL_STOPPED_S s, and must then end
# within 15 s of a SIGTERM: Python with exit status 0 (GRC's handler stops the
# flowgraph), C++ by the signal (GRC 3.10.5's C++ main has no handler: status 143).
# A recording an example writes (*.sigmf-meta in its directory, Python or C++) must
# pass gnuradio.rdma.sigmf_check. examples/*.py run too (rx_script.py: with loss injected,
# it must report the gaps). A .grc that grcc rejects or reports errors in fails the
# test; so does an example examples/README omits.
# Usage: run-examples.sh <source dir> <build dir>
. "$(dirname "$0")/common.sh"
gr_rdma_install "$1" "$2"
cd "$WORK"
libdir="$PREFIX/lib/$(gcc -dumpmachine)"
export LD_LIBRARY_PATH="$libdir"
PYTHONPATH="$(echo "$PREFIX"/lib/python3*/dist-packages)"
export PYTHONPATH
export GRC_BLOCKS_PATH="$PREFIX/share/gnuradio/grc/blocks"
UNTIL_STOPPED_S=5

# no_errors <log> <what>: no traceback, no error logged.
no_errors() {
    if grep -qE 'Traceback|:error:' "$1"; then
        fail "$2 logged an error"
    fi
}

# run <log> <command...>: at most 60 s; exit 0, no traceback, no error in the log.
run() {
    local log=$1
    shift
    local status=0
    timeout --kill-after=5 60 "$@" >"$log" 2>&1 || status=$?
    cat "$log"
    [ "$status" -ne 124 ] || fail "$* still ran after 60 s"
    [ "$status" -eq 0 ] || fail "$* exited with status $status"
    no_errors "$log" "$*"
}

# run_until_stopped <log> <expected status> <command...>: a flowgraph that has no end
# by itself (a GUI): still running after $UNTIL_STOPPED_S s, then SIGTERM, then ended
# within 15 s with the expected status and no error in the log.
run_until_stopped() {
    local log=$1 expected=$2
    shift 2
    local status=0
    QT_QPA_PLATFORM=offscreen "$@" >"$log" 2>&1 &
    local pid=$!
    sleep "$UNTIL_STOPPED_S"
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid" || status=$?
        cat "$log"
        fail "$* ended by itself (status $status) before $UNTIL_STOPPED_S s"
    fi
    kill -TERM "$pid"
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 15 ]; do
        sleep 1
        waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        cat "$log"
        fail "$* still ran 15 s after SIGTERM"
    fi
    wait "$pid" || status=$?
    cat "$log"
    [ "$status" -eq "$expected" ] ||
        fail "$* stopped by SIGTERM: exit status $status, expected $expected"
    no_errors "$log" "$*"
}

# check_recordings <dir>: every SigMF recording there is valid.
check_recordings() {
    local meta
    for meta in "$1"/*.sigmf-meta; do
        step "sigmf_check $meta"
        /usr/bin/python3 -m gnuradio.rdma.sigmf_check "${meta%.sigmf-meta}" ||
            fail "$meta: not a valid SigMF recording"
    done
}

shopt -s nullglob
examples=("$SRC"/examples/*.grc)
[ ${#examples[@]} -gt 0 ] || fail "no examples/*.grc"
languages=""
for grc in "${examples[@]}"; do
    name=$(basename "$grc")
    grep -qF "$name" "$SRC/examples/README" || fail "examples/README does not list $name"
    read -r id language gui records < <(/usr/bin/python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
o = d["options"]["parameters"]
ids = [b["id"] for b in d["blocks"] if b.get("states", {}).get("state") != "disabled"]
print(o["id"], o["output_language"], o["generate_options"] == "qt_gui",
      "rdma_sigmf_sink" in ids)' "$grc")
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
        mkdir "run-$id"
        if [ "$gui" = True ]; then
            (cd "run-$id" && run_until_stopped "../run-$id.log" 0 \
                /usr/bin/python3 "../grc-out/$id.py")
        else
            (cd "run-$id" && run "../run-$id.log" /usr/bin/python3 "../grc-out/$id.py")
        fi
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
        mkdir "run-$id"
        if [ "$gui" = True ]; then
            (cd "run-$id" && run_until_stopped "../run-$id.log" 143 \
                "../$project/build/$id")
        else
            (cd "run-$id" && run "../run-$id.log" "../$project/build/$id")
        fi
        ;;
    *) fail "$name: output_language $language is neither python nor cpp" ;;
    esac
    # Python or C++: a recording it writes in its directory is valid SigMF.
    if [ "$records" = True ]; then
        compgen -G "run-$id/*.sigmf-meta" >/dev/null ||
            fail "$id has an RDMA SigMF Sink but wrote no recording"
    fi
    check_recordings "run-$id"
done
for language in python cpp; do
    [[ " $languages " == *" $language "* ]] || fail "no example generates $language"
done

# Plain Python scripts, without GRC.
scripts=("$SRC"/examples/*.py)
for script in "${scripts[@]}"; do
    name=$(basename "$script")
    grep -qF "$name" "$SRC/examples/README" || fail "examples/README does not list $name"
done
step "run rx_script.py with loss injected"
run run-rx_script.log /usr/bin/python3 "$SRC/examples/rx_script.py" \
    --args type=emu,signal=tone,freq=250e3,loss=0.01 --rate 1e6 --seconds 1
grep -qE '^delivered [0-9]+, lost [1-9][0-9]* in gaps' run-rx_script.log ||
    fail "rx_script.py did not report the samples lost"
grep -qE '^[0-9]+ report\(s\): gap packet_lost' run-rx_script.log ||
    fail "rx_script.py did not report the gaps"
echo "examples_grcc: OK (${#examples[@]} flowgraphs, ${#scripts[@]} scripts)"
