#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# ctest debian_package: build the Debian packages (debian/) from a copy of the source
# tree and check them without touching the machine's dpkg database:
#  1. debian/ agrees with the project: the changelog's version is CMakeLists.txt's, and
#     every Build-Depends is a package .ci/build installs;
#  2. README.md's "Debian packages" commands build the .debs (dpkg-buildpackage);
#     docs/tutorial.md's install commands must be the same;
#  3. the library package is named after the libraries' SONAME, and each package holds
#     what it must: headers, CMake configs, pkg-config files, .so links, the Python
#     module, the GRC blocks, the apps, the systemd unit and the example configuration;
#  4. the packages' Depends are installable here (apt-get --simulate);
#  5. every package unpacked (dpkg -x) into a throwaway root: its gr-rdma-rx checks a
#     ramp from the emulator, its gr-rdma-tx sends one the emulator checks, and the
#     systemd unit's command line, with the example configuration, starts from there;
#  6. only with GR_RDMA_TEST_APT_INSTALL=1 (it changes the machine): README's
#     `apt install` for real, the installed gr-rdma-rx, README's developer commands
#     (libgnuradio-rdma-dev installed, tests/downstream built against /usr and run, the
#     pkg-config compile line) and a Python flowgraph from the installed module, the
#     installed unit through systemd-analyze verify (required here), docs/server.md's
#     systemctl commands when systemd runs, then the packages removed again.
# Usage: run-debian-package.sh <source dir> <build dir>
# The copy is built in <build dir>/debian-package, the same path each time, so that
# ccache (used when present) finds its earlier compilations.
set -euo pipefail
unset PYTHONPATH LD_LIBRARY_PATH PKG_CONFIG_PATH GRC_BLOCKS_PATH CMAKE_PREFIX_PATH

step() { printf '\n=== [%ss] %s\n' "$SECONDS" "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
# README's and docs' commands say sudo; root needs none (and CI images have none).
sudo() { if [ "$(id -u)" -eq 0 ]; then "$@"; else command sudo "$@"; fi; }

SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
PKG=$BUILD/debian-package
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gr-rdma-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# sh_blocks <file> <heading> [n]: the ```sh blocks under a heading (any level), up to
# the next heading of the same or a higher level; with n, only the n-th of them.
sh_blocks() {
    awk -v heading="$2" -v nth="${3:-0}" '
        /^#+ / { level = index($0, " ") - 1
                 if (in_section && level <= section_level) exit
                 if (substr($0, level + 2) == heading) { in_section = 1; section_level = level }
                 next }
        in_section && /^```sh$/ { in_block = 1; blocks++; next }
        in_block && /^```$/ { in_block = 0; next }
        in_block && (nth == 0 || blocks == nth) { print }' "$1"
}

# verify_unit <unit file> <log>: systemd-analyze verify, which must say nothing (unknown
# keys are warnings); first a unit with a fault it must report, so that silence means
# the unit was checked, not that systemd-analyze checks nothing here.
verify_unit() {
    local canary
    canary=$(dirname "$1")/gr-rdma-canary.service
    printf '[Service]\nType=exec\nExecStart=/bin/true\nNoSuchKey=1\n' >"$canary"
    systemd-analyze verify --man=no "$canary" >"$2" 2>&1 || true
    grep -q NoSuchKey "$2" ||
        fail "systemd-analyze verify does not report an unknown key here: $(cat "$2")"
    rm -f "$canary"
    systemd-analyze verify --man=no "$1" >"$2" 2>&1 || true
    [ ! -s "$2" ] || fail "systemd-analyze verify $(basename "$1"): $(cat "$2")"
    echo "systemd-analyze verify $(basename "$1"): checked, nothing to say"
}

step "debian/changelog's version is CMakeLists.txt's"
cmake_version=$(for part in MAJOR API ABI PATCH; do
                    sed -n "s/^set(VERSION_$part *\([0-9]*\))/\1/p" "$SRC/CMakeLists.txt"
                done | paste -sd.)
deb_version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
echo "CMakeLists.txt: $cmake_version, debian/changelog: $deb_version"
[ "$deb_version" = "$cmake_version" ] ||
    fail "debian/changelog says $deb_version, CMakeLists.txt $cmake_version: add a" \
         "changelog entry (dch -v $cmake_version)"

step "every Build-Depends is installed by .ci/build"
build_deps=$(awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
                  on && /^[A-Za-z-]+:/ && !/^Build-Depends:/ { exit }
                  on && !/^#/ { print }' "$SRC/debian/control" |
             tr ',' '\n' | sed 's/[[:space:]]*\([^[:space:](]*\).*/\1/' | grep . |
             sed 's/^debhelper-compat$/debhelper/')
ci_packages=$(sed -n '/^packages=(/,/^)/p' "$SRC/.ci/build" | sed 's/#.*//' |
              tr -s ' ()' '\n\n\n')
for dep in $build_deps; do
    grep -qxF "$dep" <<<"$ci_packages" ||
        fail "debian/control Build-Depends on $dep, which .ci/build does not install:" \
             "add it to .ci/build's packages (or drop it from Build-Depends)"
done
echo "$(wc -w <<<"$build_deps") build dependencies, all in .ci/build"

step "copy the source tree to $PKG/gr-rdma"
rm -rf "$PKG"
mkdir -p "$PKG/gr-rdma"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    # What is checked out, with changes not yet committed; no build tree.
    git -C "$SRC" ls-files -z -co --exclude-standard |
        tar -C "$SRC" --null -T - -cf - | tar -C "$PKG/gr-rdma" -xf -
else
    tar -C "$SRC" --exclude='./build*' --exclude=./debian-package -cf - . |
        tar -C "$PKG/gr-rdma" -xf -
fi

step "README.md: Debian packages (the .debs)"
# Its first block builds and installs the packages, its second is for developers (-dev).
sh_blocks "$SRC/README.md" "Debian packages" 1 >"$WORK/readme.sh"
sh_blocks "$SRC/README.md" "Debian packages" 2 >"$WORK/readme-dev.sh"
[ -s "$WORK/readme.sh" ] || fail "README.md has no sh commands under 'Debian packages'"
[ -s "$WORK/readme-dev.sh" ] ||
    fail "README.md's 'Debian packages' has no second sh block (the -dev package)"
cat "$WORK/readme.sh" "$WORK/readme-dev.sh"
grep -qE '^sudo apt(-get)? install .*libgnuradio-rdma-dev' "$WORK/readme-dev.sh" ||
    fail "README.md's developer commands do not install libgnuradio-rdma-dev"
# The tutorial installs the same way: what runs here (and in step 6) runs its commands.
{ sh_blocks "$SRC/docs/tutorial.md" "1. Install" |
    grep -E '^(dpkg-buildpackage|sudo apt(-get)? install) ' || true; } >"$WORK/tutorial.sh"
diff -u "$WORK/readme.sh" "$WORK/tutorial.sh" ||
    fail "docs/tutorial.md's install commands are not README.md's Debian packages commands"
# The build's command runs here, in the copy; the apt install (it changes the machine)
# only in step 6. The package build compiles with ccache when there is one, builds no
# debug symbol packages and runs no tests (ctest does).
export DEB_BUILD_OPTIONS="parallel=2 nocheck noautodbgsym"
if command -v ccache >/dev/null; then
    export GR_RDMA_DEB_CMAKE_FLAGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
    # debhelper gives the build a HOME of its own, inside the copy: name the user's cache.
    CCACHE_DIR=${CCACHE_DIR:-$(ccache -k cache_dir)}
    export CCACHE_DIR
    echo "compiling with ccache, cache $CCACHE_DIR"
fi
grep -q '^dpkg-buildpackage ' "$WORK/readme.sh" ||
    fail "README.md's Debian commands build no package (dpkg-buildpackage)"
(
    cd "$PKG/gr-rdma"
    grep '^dpkg-buildpackage ' "$WORK/readme.sh" | while read -r command; do
        echo "+ $command"
        bash -c "$command" >"$PKG/build.log" 2>&1 ||
            { tail -50 "$PKG/build.log"; fail "$command failed: $PKG/build.log"; }
    done
)
ls -l "$PKG"/*.deb

deb() { # deb <package>: its .deb
    local files=("$PKG/$1"_*.deb)
    [ -e "${files[0]}" ] || fail "no package $1 was built (debian/control)"
    echo "${files[0]}"
}

step "the library package is named after the SONAME"
lib_package=$(sed -n 's/^Package: \(libgnuradio-rdma[0-9].*\)/\1/p' "$SRC/debian/control")
dpkg-deb -x "$(deb "$lib_package")" "$WORK/lib"
for lib in gnuradio-rdma gnuradio-rdma-transport; do
    file=$(find "$WORK/lib" -name "lib$lib.so.*" -type f)
    [ -n "$file" ] || fail "$lib_package holds no lib$lib.so.*"
    soname=$(objdump -p "$file" | awk '$1 == "SONAME" {print $2}')
    abi=${soname#lib"$lib".so.}
    echo "$soname"
    [ "$lib_package" = "libgnuradio-rdma$abi" ] ||
        fail "lib$lib's SONAME is $soname: the package must be libgnuradio-rdma$abi," \
             "not $lib_package (debian/control and debian/$lib_package.install)"
done

step "each package holds what it must"
contents() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | sed 's|^\./|/|'; }
expect() { # expect <package> <path regex>...
    local package=$1 listing
    shift
    listing=$(contents "$package")
    for path in "$@"; do
        grep -qE "^$path\$" <<<"$listing" || fail "$package holds no $path"
    done
}
libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
expect "$lib_package" "$libdir/libgnuradio-rdma\.so\..*" \
    "$libdir/libgnuradio-rdma-transport\.so\..*"
headers=$(sed -n '/^set(rdma_public_headers/,/)/p' \
          "$SRC/include/gnuradio/rdma/CMakeLists.txt" | grep -oE '[a-z_]+\.h')
[ -n "$headers" ] || fail "found no public header list in include/gnuradio/rdma"
# shellcheck disable=SC2046
expect libgnuradio-rdma-dev $(printf '/usr/include/gnuradio/rdma/%s ' $headers) \
    "$libdir/libgnuradio-rdma\.so" "$libdir/libgnuradio-rdma-transport\.so" \
    "$libdir/cmake/gnuradio-rdma/gnuradio-rdmaConfig\.cmake" \
    "$libdir/cmake/gnuradio-rdma-transport/gnuradio-rdma-transportConfig\.cmake" \
    "$libdir/pkgconfig/gnuradio-rdma\.pc" "$libdir/pkgconfig/gnuradio-rdma-transport\.pc"
pydir=/usr/lib/python3/dist-packages/gnuradio/rdma
# shellcheck disable=SC2046
expect gr-rdma "$pydir/__init__\.py" "$pydir/rx_app\.py" "$pydir/rdma_python\..*\.so" \
    $(cd "$SRC/grc" && printf '/usr/share/gnuradio/grc/blocks/%s ' ./*.block.yml |
      sed 's|/\./|/|g') \
    /usr/bin/gr-rdma-rx /usr/bin/gr-rdma-find /usr/bin/gr-rdma-probe \
    /usr/bin/gr-rdma-doctor /usr/bin/gr-rdma-tx "/lib/systemd/system/gr-rdma-rx@\.service" \
    /usr/share/gr-rdma/rx-example.conf /etc/gr-rdma/ /usr/share/doc/gr-rdma/server\.md
# The emulator in its own package: the module the libraries load for type=emu and
# type=null, and the daemon. Neither the libraries nor gr-rdma hold any of it.
expect gr-rdma-emulator "$libdir/gr-rdma-modules-[0-9.]+/libgnuradio-rdma-emulator\.so" \
    /usr/bin/gr-rdma-emu
for package in "$lib_package" gr-rdma; do
    ! contents "$package" | grep -E 'gr-rdma-emu$|libgnuradio-rdma-emulator' ||
        fail "$package holds the emulator's files: they are gr-rdma-emulator's"
done
for package in $(sed -n 's/^Package: //p' "$SRC/debian/control"); do
    echo "$package: $(contents "$package" | grep -cv '/$') files"
done

step "the packages' Depends are installable here (apt-get --simulate)"
for package in $(sed -n 's/^Package: //p' "$SRC/debian/control"); do
    echo "$package: $(dpkg-deb -f "$(deb "$package")" Depends)"
done
debs=()
for package in $(sed -n 's/^Package: //p' "$SRC/debian/control"); do
    debs+=("$(deb "$package")")
done
apt-get install --simulate --no-install-recommends "${debs[@]}" >"$WORK/simulate.log" 2>&1 ||
    { cat "$WORK/simulate.log"; fail "the packages cannot be installed here"; }
grep -E '^(Inst|Conf) ' "$WORK/simulate.log" || true

step "unpacked into a throwaway root: gr-rdma-rx checks the emulator's ramp"
ROOT=$WORK/root
for file in "${debs[@]}"; do
    dpkg-deb -x "$file" "$ROOT"
done
rx_in_root() { # gr-rdma-rx from $ROOT, with its module and libraries
    PYTHONPATH=$ROOT/usr/lib/python3/dist-packages LD_LIBRARY_PATH=$ROOT$libdir \
        "$ROOT/usr/bin/gr-rdma-rx" "$@"
}
check_report() { # check_report <json file>: nothing lost but to a stop, no mismatch
    /usr/bin/python3 - "$1" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
check = report.get("check") or {}
print("samples_delivered %s, samples_lost %s, mismatches %s" % (
    report.get("samples_delivered"), report.get("samples_lost"), check.get("mismatches")))
causes = report.get("lost_by_cause") or {}
# A service stopped by SIGTERM loses what the device emitted but it had not handed out
# yet (cause "stopped"): accounted for, not a loss on the wire.
wire_lost = (report.get("samples_lost") or 0) - causes.get("stopped", 0)
sys.exit(0 if report.get("samples_delivered", 0) > 0 and wire_lost == 0
         and report.get("identity_holds") and check.get("mismatches") == 0 else 1)
EOF
}
PYTHONPATH=$ROOT/usr/lib/python3/dist-packages LD_LIBRARY_PATH=$ROOT$libdir \
    /usr/bin/python3 -c 'import sys; from gnuradio import rdma
sys.exit(0 if rdma.__file__.startswith(sys.argv[1]) else
         "gnuradio.rdma came from %s, not from the unpacked package" % rdma.__file__)' \
    "$ROOT/"
rx_in_root --args "type=emu,signal=ramp" --rate 2e6 --duration 0.5 --check --json \
    >"$WORK/rx.json" || { cat "$WORK/rx.json"; fail "gr-rdma-rx from the package failed"; }
check_report "$WORK/rx.json" || fail "gr-rdma-rx from the package: $(cat "$WORK/rx.json")"

step "unpacked into a throwaway root: gr-rdma-tx's ramp, checked by the emulator"
"$ROOT/usr/bin/gr-rdma-tx" --args "type=emu,tx_check=1,hugepages=off" --rate 1e6 \
    --duration 0.5 --json >"$WORK/tx.json" ||
    { cat "$WORK/tx.json"; fail "gr-rdma-tx from the package failed"; }
/usr/bin/python3 - "$WORK/tx.json" <<'EOF' || fail "gr-rdma-tx from the package: $(cat "$WORK/tx.json")"
import json, sys
r = json.load(open(sys.argv[1]))
print("samples_provided %s, played_intact %s, mismatches %s" % (
    r["samples_provided"], r["played_intact"], r["device_check"]["mismatches"]))
sys.exit(0 if r["identity_holds"] and r["played_intact"] > 0
         and r["device_check"]["mismatches"] == 0 else 1)
EOF

step "the systemd unit: its command line, with the example configuration"
unit=$ROOT/lib/systemd/system/gr-rdma-rx@.service
if command -v systemd-analyze >/dev/null; then
    # Its syntax, and that ExecStart's program exists: an instance of the unit as
    # unpacked, its program in the root. Unknown keys are warnings: nothing may be said.
    mkdir "$WORK/units"
    sed "s|^ExecStart=/|ExecStart=$ROOT/|" "$unit" >"$WORK/units/gr-rdma-rx@verify.service"
    verify_unit "$WORK/units/gr-rdma-rx@verify.service" "$WORK/verify.log"
    systemd-analyze security --offline=yes "$WORK/units/gr-rdma-rx@verify.service" |
        grep 'Overall exposure' || true
elif [ "${GR_RDMA_TEST_APT_INSTALL:-}" = 1 ]; then
    fail "systemd-analyze is not installed (package systemd; .ci/build installs it):" \
         "the unit cannot be verified"
else
    echo "NOT CHECKED: systemd-analyze is not installed (package systemd)"
fi
grep -qx 'EnvironmentFile=/etc/gr-rdma/rx-%i.conf' "$unit" ||
    fail "the unit reads no /etc/gr-rdma/rx-%i.conf"
grep -qx 'LimitMEMLOCK=infinity' "$unit" || fail "the unit does not lift RLIMIT_MEMLOCK"
! grep -qE '^(PrivateDevices|ProtectClock|DevicePolicy)=' "$unit" ||
    fail "the unit closes the device policy: nic=verbs needs /dev/infiniband"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
echo "ExecStart=$exec_start"
# What systemd runs: the configuration's variables, split at whitespace.
(
    set -a
    # shellcheck disable=SC1091
    . "$ROOT/usr/share/gr-rdma/rx-example.conf"
    set +a
    [ -n "${GR_RDMA_RX_ARGS:-}" ] || fail "rx-example.conf sets no GR_RDMA_RX_ARGS"
    read -ra command <<<"${exec_start//\$GR_RDMA_RX_ARGS/$GR_RDMA_RX_ARGS}"
    [ "${command[0]}" = /usr/bin/gr-rdma-rx ] || fail "ExecStart runs ${command[0]}"
    args=("${command[@]:1}")
    if ! rx_in_root --help | grep -q -- '--status'; then
        # Until gr-rdma-rx runs until SIGTERM and has --status: the rest of the line.
        echo "NOT RUN AS WRITTEN: this gr-rdma-rx has no --status (continuous mode);" \
             "running the configuration without --status, for 0.5 s"
        read -ra args <<<"${args[*]/--status/} --duration 0.5"
    fi
    echo "+ ${command[0]} ${args[*]} --json"
    # A service runs until stopped: stop it as systemd does, with SIGTERM, once it
    # streams (its first status line; without --status, after 3 s).
    PYTHONPATH=$ROOT/usr/lib/python3/dist-packages LD_LIBRARY_PATH=$ROOT$libdir \
        PYTHONUNBUFFERED=1 "$ROOT${command[0]}" "${args[@]}" --json \
        >"$WORK/service.out" 2>"$WORK/service.err" &
    service=$!
    for _ in $(seq 150); do
        grep -q '"kind": "status"' "$WORK/service.out" && break
        [[ " ${args[*]} " == *" --status "* ]] || { sleep 3; break; }
        kill -0 "$service" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$service" 2>/dev/null || true
    rc=0
    wait "$service" || rc=$?
    cat "$WORK/service.out"
    [ "$rc" -eq 0 ] || {
        tail -20 "$WORK/service.err"
        fail "the example service exited $rc after SIGTERM (want 0 and the report)"
    }
    tail -1 "$WORK/service.out" >"$WORK/service.json"
    check_report "$WORK/service.json" || fail "the example service lost or garbled samples"
)

step "GR_RDMA_TEST_APT_INSTALL=1: apt install, for real"
if [ "${GR_RDMA_TEST_APT_INSTALL:-}" != 1 ]; then
    echo "NOT RUN: set GR_RDMA_TEST_APT_INSTALL=1 to install the packages on this machine"
    echo "debian_package: OK"
    exit 0
fi
# Ours that are installed: apt refuses to remove a package it does not know.
installed() {
    # shellcheck disable=SC2046
    dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' \
        $(sed -n 's/^Package: //p' "$SRC/debian/control") 2>/dev/null |
        awk '$1 != "un" {print $2}'
}
# shellcheck disable=SC2046
trap 'sudo apt-get remove -y -q --purge $(installed) >/dev/null || true; rm -rf "$WORK"' EXIT
(
    cd "$PKG/gr-rdma"
    export DEBIAN_FRONTEND=noninteractive
    grep -E '^sudo apt(-get)? install ' "$WORK/readme.sh" >"$WORK/apt.sh" ||
        fail "README.md's Debian commands install nothing (sudo apt install)"
    while read -r command; do
        echo "+ $command"
        # apt asks before it installs dependencies too: yes.
        eval "$command" < <(yes) || fail "$command failed"
    done <"$WORK/apt.sh"
)
dpkg-query -W gr-rdma "$lib_package"
/usr/bin/gr-rdma-rx --args "type=emu,signal=ramp" --rate 2e6 --duration 0.5 --check --json \
    >"$WORK/installed.json" || fail "the installed gr-rdma-rx failed"
check_report "$WORK/installed.json" || fail "the installed gr-rdma-rx lost samples"

step "README.md: the developer commands, against the installed packages (/usr)"
# set -e ignores a failure before && or ||: one command per line, so that each counts.
! grep -nE '&&|\|\|' "$WORK/readme-dev.sh" ||
    fail "README.md's developer commands: chain no commands with && or ||"
# From the top of the checkout the packages were built in (their .debs in its parent),
# as README says.
DEV=$PKG/gr-rdma
(
    cd "$DEV"
    export DEBIAN_FRONTEND=noninteractive
    # One command at a time, in one shell, each checked (a failure inside a subshell
    # tested by || would not stop it).
    while read -r command; do
        [ -n "$command" ] || continue
        echo "+ [${SECONDS}s] $command"
        # apt asks before it installs dependencies too: yes.
        eval "$command" < <(yes) || fail "README.md's developer command failed: $command"
    done <"$WORK/readme-dev.sh"
)
dpkg-query -W libgnuradio-rdma-dev
# Found in /usr, by default: not in a build tree or another prefix.
grep -qx "gnuradio-rdma_DIR:PATH=$libdir/cmake/gnuradio-rdma" \
    "$DEV/build-downstream/CMakeCache.txt" ||
    fail "the downstream project did not find gnuradio-rdma in $libdir/cmake:" \
         "$(grep -E '^gnuradio-rdma(-transport)?_DIR' "$DEV/build-downstream/CMakeCache.txt")"
# (ldd may name /lib for /usr/lib: Debian's merged /usr.)
for program in build-downstream/rx_ramp build-downstream/flowgraph rx_ramp; do
    loaded=$(ldd "$DEV/$program" | awk '$1 ~ /^libgnuradio-rdma-transport\.so/ {print $3}')
    [ -n "$loaded" ] && [ "$(dirname "$(realpath "$loaded")")" = "$(realpath "$libdir")" ] ||
        fail "$program does not load libgnuradio-rdma-transport from $libdir: $(ldd "$DEV/$program")"
    echo "$program: libgnuradio-rdma-transport from $(realpath "$loaded")"
done
# The installed Python module, in a flowgraph: a bit-exact ramp.
/usr/bin/python3 "$SRC/tests/downstream/ramp_flowgraph.py" /usr ||
    fail "a Python flowgraph with the installed gnuradio.rdma failed"
if [ -d /run/systemd/system ]; then
    step "docs/server.md, with systemd"
    sh_blocks "$SRC/docs/server.md" "Run it" >"$WORK/server.sh"
    [ -s "$WORK/server.sh" ] || fail "docs/server.md has no sh commands under 'Run it'"
    cat "$WORK/server.sh"
    # shellcheck disable=SC1091
    (set -x; . "$WORK/server.sh")
else
    echo "NOT RUN: docs/server.md's systemctl commands (systemd is not running here)"
fi
step "the installed unit: systemd-analyze verify"
command -v systemd-analyze >/dev/null ||
    fail "systemd-analyze is not installed (package systemd; .ci/build installs it):" \
         "the installed unit cannot be verified"
# The unit as installed, unchanged: its ExecStart is the installed gr-rdma-rx.
mkdir -p "$WORK/installed-units"
cp /lib/systemd/system/gr-rdma-rx@.service \
    "$WORK/installed-units/gr-rdma-rx@installed.service"
verify_unit "$WORK/installed-units/gr-rdma-rx@installed.service" "$WORK/verify-installed.log"
step "apt remove"
# shellcheck disable=SC2046
sudo apt-get remove -y -q --purge $(installed)
[ -z "$(installed)" ] || fail "still installed: $(installed)"
echo "debian_package: OK (installed and removed again)"
