#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# ctest downstream_install: install the build into a fresh prefix and use it the way
# a downstream user does, with nothing from the build tree:
#  1. the commands of README's "Use an installed copy", as written (CMake project
#     tests/downstream against the prefix, pkg-config, the installed gr-rdma-rx);
#  2. the same CMake project with the transport library alone (no GNU Radio);
#  3. the C++ examples of README.md and docs/*.md: installed headers only, and they
#     compile (tests/downstream/doc_snippets.py);
#  4. a Python flowgraph importing gnuradio.rdma from the prefix: a bit-exact ramp.
# Usage: run-downstream.sh <source dir> <build dir>
. "$(dirname "$0")/common.sh"
gr_rdma_install "$1" "$2"
cd "$WORK"

# README's commands run from the top of a checkout: give them one (build/ is ours).
ln -s "$BUILD" build
ln -s "$SRC/tests" tests
ln -s "$SRC/examples" examples

step "README.md: Use an installed copy"
awk '/^## Use an installed copy/ {in_section = 1; next}
     in_section && /^## / {exit}
     in_section && /^```sh$/ {in_block = 1; next}
     in_block && /^```$/ {in_block = 0; next}
     in_block {print}' "$SRC/README.md" >readme.sh
[ -s readme.sh ] || fail "README.md has no sh commands under '## Use an installed copy'"
# set -e ignores a failure before && or ||: one command per line, so that each counts.
! grep -nE '&&|\|\|' readme.sh || fail "README.md: chain no commands with && or || there"
cat readme.sh
PS4='+ [${SECONDS}s] '
set -x
# shellcheck disable=SC1091
. ./readme.sh
set +x

step "the CMake project found gr-rdma in the prefix"
grep -E "^gnuradio-rdma(-transport)?_DIR:PATH=" build-downstream/CMakeCache.txt
found=$(grep -E "^gnuradio-rdma(-transport)?_DIR:PATH=" build-downstream/CMakeCache.txt |
        grep -vF "=$PREFIX/" || true)
[ -z "$found" ] || fail "found outside the prefix: $found"

step "transport library alone, without GNU Radio"
cmake -S tests/downstream -B build-transport -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DGR_RDMA_TRANSPORT_ONLY=ON >build-transport.log ||
    { cat build-transport.log; fail "configuring the transport-only project failed"; }
cmake --build build-transport -j2
if ldd build-transport/rx_ramp | grep -q 'libgnuradio-runtime'; then
    fail "rx_ramp built against the transport library links GNU Radio"
fi
build-transport/rx_ramp 1000000 fc32

step "the emulator is a module beside the libraries, not in them"
# rx_ramp (type=emu) ran through the transport library, which loaded it from here.
module=$(echo "$libdir"/gr-rdma-modules-*/libgnuradio-rdma-emulator.so)
[ -f "$module" ] || fail "no emulator module under $libdir/gr-rdma-modules-*/"
# Counted, not grep -q: with pipefail, nm killed by an early exit of grep fails the line.
[ "$(nm -C "$module" | grep -c 'gr::rdma::emu::')" -gt 0 ] ||
    fail "$module holds no emulator"
[ "$(nm -C "$libdir"/libgnuradio-rdma-transport.so | grep -c 'gr::rdma::\(emu\|standin\)::')" = 0 ] ||
    fail "the transport library holds emulator code"

step "the C++ examples of README.md and docs/ compile against the prefix"
/usr/bin/python3 "$SRC/tests/downstream/doc_snippets.py" "$SRC" snippets
for snippet in snippets/*.cc; do
    [ -e "$snippet" ] || continue
    # shellcheck disable=SC2046
    g++ -fsyntax-only "$snippet" $(pkg-config --cflags gnuradio-rdma) ||
        fail "$(head -1 "$snippet" | cut -c4-): this C++ example does not compile"
done

step "Python flowgraph from the prefix: a bit-exact ramp"
/usr/bin/python3 "$SRC/tests/downstream/ramp_flowgraph.py" "$PREFIX"

echo "downstream_install: OK"
