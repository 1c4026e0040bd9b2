#!/bin/sh
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A/B of two revisions' host cost per GB (bench/ab.py): builds each revision in a
# worktree under build-ab/ (REV_B defaults to the working tree's build-bench), then
# runs them interleaved.
#
#   bench/ab.sh e6d3d48            # that revision against the working tree
#   bench/ab.sh e6d3d48 HEAD --reps 9
set -eu
here=$(dirname "$(readlink -f "$0")")
src=$(dirname "$here")
py=/usr/bin/python3
[ $# -ge 1 ] || { echo "usage: $0 REV_A [REV_B] [ab.py options]" >&2; exit 2; }
build_rev() { # build_rev REV DIR: a worktree of REV at DIR/src, built in DIR/build
    if [ ! -d "$2/src" ]; then
        git -C "$src" worktree add --detach "$2/src" "$1" >/dev/null
    fi
    cmake -S "$2/src" -B "$2/build" -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE=$py >/dev/null
    # The module's directory for tests first: building the bindings copies into it.
    make -C "$2/build" copy_module_for_tests >/dev/null
    make -C "$2/build" -j"$(nproc)" gnuradio-rdma rdma_python >/dev/null
}
a=$1
shift
build_rev "$a" "$src/build-ab/$a"
if [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; then
    b=$1
    shift
    build_rev "$b" "$src/build-ab/$b"
    bdir="$src/build-ab/$b/build"
else
    bdir=${BUILD:-$src/build-bench}
    cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE=$py >/dev/null
    make -C "$bdir" copy_module_for_tests >/dev/null
    make -C "$bdir" -j"$(nproc)" gnuradio-rdma rdma_python >/dev/null
fi
exec $py "$here/ab.py" --a "$src/build-ab/$a/build" --b "$bdir" "$@"
