#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The rxe guest test (ctest: rxe_guest; docs/rxe-guest.md). Real verbs need an RDMA
# stack in the kernel, which the build machines' own kernels lack: so boot Debian's
# kernel under qemu (TCG, no KVM needed) with an initramfs assembled here, from this
# machine's packages and the build tree's binaries, and run the test list there against
# Linux soft-RoCE (rxe0).
#
# usage: run-rxe-guest.sh --work DIR --emulator PATH --tests LIST [--shell]
#   --shell   boot the same guest with a shell on the console instead of the tests
# Environment: RXE_GUEST_TIMEOUT (s, default 600), RXE_GUEST_ACCEL (default tcg),
#              RXE_GUEST_SMP (default 2), RXE_GUEST_MEM (MiB, default 1024).
#
# Exit status: 0 every test passed; 1 a test failed, the guest did not come up or did
# not finish; 77 (ctest: skipped) this machine lacks what the guest is built from.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work="" emulator="" tests="" mode=run
while [ $# -gt 0 ]; do
    case "$1" in
    --work) work=$2; shift 2 ;;
    --emulator) emulator=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --shell) mode=shell; shift ;;
    *) echo "run-rxe-guest: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$work" ] || [ -z "$emulator" ] || [ -z "$tests" ]; then
    echo "usage: $0 --work DIR --emulator PATH --tests LIST [--shell]" >&2
    exit 2
fi
timeout_s=${RXE_GUEST_TIMEOUT:-600}
# The guest sees programs at their absolute build-tree paths.
mkdir -p "$work"
work=$(readlink -f "$work")
emulator=$(readlink -f "$emulator")
tests=$(readlink -f "$tests")
[ -x "$emulator" ] || { echo "run-rxe-guest: $emulator is not built" >&2; exit 1; }
[ -f "$tests" ] || { echo "run-rxe-guest: test list $tests does not exist" >&2; exit 1; }

# ---- what the guest is built from: missing pieces skip the test, loudly ---------------
missing=() packages=()
need() { # need <what is missing> <package>
    missing+=("$1")
    case " ${packages[*]} " in *" $2 "*) ;; *) packages+=("$2") ;; esac
}
program() { # an executable regular file: $1 on PATH, or any of the paths $2...
    local p
    p=$(command -v "$1" 2>/dev/null) && [ -f "$p" ] && [ -x "$p" ] && return 0
    shift
    for p in "$@"; do
        [ -f "$p" ] && [ -x "$p" ] && return 0
    done
    return 1
}
program qemu-system-x86_64 || need "qemu-system-x86_64" qemu-system-x86
program cpio || need "cpio" cpio
program busybox /bin/busybox /usr/bin/busybox || need "busybox" busybox-static
if ! program ip /usr/bin/ip /bin/ip /sbin/ip || ! program rdma /usr/bin/rdma /sbin/rdma; then
    need "iproute2's ip and rdma" iproute2
fi
if ! compgen -G '/usr/lib/*/libibverbs/librxe-rdmav*.so' >/dev/null ||
    [ ! -f /etc/libibverbs.d/rxe.driver ]; then
    need "the libibverbs rxe provider" ibverbs-providers
fi

# The kernel: the newest installed version that has rdma_rxe and a bootable image (the
# running kernel may be another one entirely, e.g. a VM's, without modules here).
kver=""
for v in $(find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V -r); do
    dir=/lib/modules/$v
    if find "$dir" -name 'rdma_rxe.ko*' -print -quit 2>/dev/null | grep -q . &&
        [ -r "/boot/vmlinuz-$v" ] && [ -f "$dir/modules.dep" ]; then
        kver=$v
        break
    fi
done
[ -n "$kver" ] || need "a kernel with rdma_rxe.ko and a readable /boot/vmlinuz-<version>" linux-image-amd64

if [ ${#missing[@]} -gt 0 ]; then
    msg=$(printf '%s, ' "${missing[@]}")
    msg=${msg%, }
    echo "************************************************************************"
    echo "SKIPPED: rxe guest test: missing ${msg} — install ${packages[*]}"
    echo "  (e.g. apt-get install ${packages[*]}; .ci/build installs them)"
    echo "************************************************************************"
    exit 77
fi

# ---- build the initramfs now, from the binaries as they are built ----------------------
"$here/make-initramfs.sh" --out "$work" --kernel-version "$kver" --emulator "$emulator" \
    --tests "$tests" --mode "$mode"

qemu=(qemu-system-x86_64 -accel "${RXE_GUEST_ACCEL:-tcg}" -m "${RXE_GUEST_MEM:-1024}"
    -smp "${RXE_GUEST_SMP:-2}" -nographic -no-reboot -nic none
    -kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz"
    # The host's root, read-only, for what the initramfs cannot hold (host-root.sh).
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
    -append "console=ttyS0 panic=-1 quiet")
echo "run-rxe-guest: ${qemu[*]}"

if [ "$mode" = shell ]; then
    exec "${qemu[@]}"
fi

log=$work/console.log
start=$(date +%s)
set +e
timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$log"
qemu_rc=${PIPESTATUS[0]}
set -e
elapsed=$(($(date +%s) - start))

# ---- map the guest's result lines to our exit status ----------------------------------
echo
echo "==== rxe guest summary (kernel $kver, ${elapsed} s wall clock) ===="
status=0
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
    echo "FAIL: the guest did not finish within ${timeout_s} s (RXE_GUEST_TIMEOUT)"
    status=1
fi
if grep -q '^RXE-GUEST-SETUP-FAILED' "$log"; then
    echo "FAIL: guest setup: $(grep '^RXE-GUEST-SETUP-FAILED' "$log" | head -1 | cut -d' ' -f2-)"
    status=1
fi
grep '^RXE-GUEST-RESULT' "$log" | cut -d' ' -f2- | sed 's/^/  /' || true
# Every listed test must have reported, and passed.
while read -r name _; do
    case "$name" in '' | '#'*) continue ;; esac
    line=$(grep "^RXE-GUEST-RESULT $name " "$log" | tail -1 || true)
    if [ -z "$line" ]; then
        echo "FAIL: $name: no result (the guest stopped before it)"
        status=1
    elif ! echo "$line" | grep -q " PASS "; then
        status=1
    fi
done <"$tests"
if ! grep -q '^RXE-GUEST-DONE' "$log"; then
    echo "FAIL: the guest did not power off cleanly (see $log)"
    status=1
fi
final=$(grep '^RXE-GUEST-STATUS' "$log" | tail -1 || true)
echo "${final:-RXE-GUEST-STATUS missing}"
echo "console log: $log"
[ $status -eq 0 ] && echo "rxe guest: PASSED" || echo "rxe guest: FAILED"
exit $status
