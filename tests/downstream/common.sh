# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sourced by this directory's tests: a fresh temporary work directory (removed on
# exit, whatever happens) and a copy of the build installed into $PREFIX under it.
#   gr_rdma_install <source dir> <build dir>

set -euo pipefail
# Only what the tests set up may lead to gr-rdma: not the caller's environment.
unset PYTHONPATH LD_LIBRARY_PATH PKG_CONFIG_PATH GRC_BLOCKS_PATH CMAKE_PREFIX_PATH

step() { printf '\n=== [%ss] %s\n' "$SECONDS" "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

gr_rdma_install() {
    SRC=$(cd "$1" && pwd)
    BUILD=$(cd "$2" && pwd)
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gr-rdma-test.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    PREFIX=$WORK/prefix
    export PREFIX
    step "cmake --install $BUILD --prefix $PREFIX"
    cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" ||
        { cat "$WORK/install.log"; fail "cmake --install failed"; }
    # Nothing installed may point back into the build or source tree.
    local leaks
    leaks=$(grep -rlF -e "$BUILD" -e "$SRC" "$PREFIX" --include='*.cmake' \
            --include='*.pc' --include='*.py' --include='gr-rdma-rx' || true)
    [ -z "$leaks" ] || fail "installed files name the build or source tree: $leaks"
}
