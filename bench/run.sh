#!/bin/sh
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The benchmark suite in one command (docs/performance.md): build what it needs, run
# every phase, print the table. Raw CSV and metadata land in bench/results/<UTC time>/.
#
#   bench/run.sh            # the full suite (about 12 minutes on 2 cores)
#   bench/run.sh --quick    # one short repetition: a smoke run, not a measurement
#
# Extra arguments go to bench/run.py. BUILD=<dir> picks the build tree (default
# build-bench). Root is needed for the tuned socket buffers and hugepages (set and
# restored by the runner); without it those parts are skipped and the metadata says so.
set -eu
here=$(dirname "$(readlink -f "$0")")
src=$(dirname "$here")
build=${BUILD:-$src/build-bench}
py=/usr/bin/python3 # GNU Radio's Python module exists only for Debian's interpreter

if ! $py -c "import matplotlib" 2>/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y python3-matplotlib >/dev/null
fi
cmake -S "$src" -B "$build" -DPYTHON_EXECUTABLE=$py >/dev/null
make -C "$build" -j"$(nproc)" bench >/dev/null

out="$here/results/$(date -u +%Y%m%dT%H%M%SZ)"
$py "$here/run.py" --build "$build" --out "$out" "$@"
$py "$here/analyze.py" "$out"
echo "raw results: $out"
echo "docs: $py $here/analyze.py $out --write-docs"
