#!/bin/busybox sh
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# /init of the rxe guest (docs/rxe-guest.md), built by make-initramfs.sh. Sets up
#   root namespace: lo, veth0 192.0.2.1/24 carrying rxe0 (the host side, verbs),
#                   veth2 198.51.100.1/24 carrying rxe1 (its second NIC)
#   namespace dev:  lo, veth1 192.0.2.2/24, veth3 198.51.100.2/24 and
#                   gr-rdma-emu --wire raw (the SDR: link 0 on veth1, link 1 on veth3)
# then runs the tests of /rxe-guest/tests.list (or a shell, mode "shell") and powers off.
#
# Machine-readable lines on the console, parsed by run-rxe-guest.sh:
#   RXE-GUEST-SETUP-FAILED <reason>
#   RXE-GUEST-RESULT <name> PASS|FAIL rc=<status> seconds=<guest seconds>
#   RXE-GUEST-STATUS passed=<n> failed=<n>
#   RXE-GUEST-DONE
# Busybox's shell prefers its own applets: iproute2's ip and rdma are called by path.
# No "set -e": init must never exit (the kernel panics); every failure is reported and
# ends in power_off.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin:/sbin
IP=/usr/bin/ip
RDMA=/usr/bin/rdma
CONF=/rxe-guest

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# The initramfs root is already in RAM and writable; no tmpfs over /tmp, which would
# hide binaries that were built under /tmp.
mkdir -p /tmp /run/netns /var/run

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "RXE-GUEST: $* (t=$(uptime_s) s)"; }

power_off() {
    echo "RXE-GUEST-DONE"
    sync
    poweroff -f
    sleep 10 # poweroff -f does not return; never let init exit (kernel panic)
}

setup_failed() {
    echo "RXE-GUEST-SETUP-FAILED $*"
    [ -f /tmp/emu.log ] && sed 's/^/emu: /' /tmp/emu.log
    echo "RXE-GUEST-STATUS passed=0 failed=1"
    power_off
}

say "booted $(uname -r)"
# Dependencies first (make-initramfs.sh wrote them in load order). rdma_rxe finds its
# CRC through the crypto API at run time, and there is no modprobe here: crc32_generic
# is in the list explicitly, or "rdma link add" fails with ENOENT.
while read -r m; do
    insmod "$CONF/modules.d/$m.ko" || setup_failed "insmod $m"
done <$CONF/modules

# After a TCG stall the emulator catches up with a burst of frames; veth hands them to
# the per-CPU backlog, whose default 1000 packets would drop some before rxe sees them.
sysctl -qw net.core.netdev_max_backlog=100000 || setup_failed "netdev_max_backlog"
$IP link set lo up || setup_failed "lo up"
$IP link add veth0 type veth peer name veth1 || setup_failed "veth pair"
$IP addr add 192.0.2.1/24 dev veth0 || setup_failed "veth0 address"
$IP link set veth0 up || setup_failed "veth0 up"
$IP netns add dev || setup_failed "netns dev"
$IP link set veth1 netns dev || setup_failed "veth1 into dev"
$IP -n dev link set lo up || setup_failed "dev lo up"
$IP -n dev addr add 192.0.2.2/24 dev veth1 || setup_failed "veth1 address"
$IP -n dev link set veth1 up || setup_failed "veth1 up"
# The second link (docs/links.md): its own veth pair and rxe device, its own subnet, so
# that link 1's frames reach the host only through rxe1.
$IP link add veth2 type veth peer name veth3 || setup_failed "veth pair 2"
$IP addr add 198.51.100.1/24 dev veth2 || setup_failed "veth2 address"
$IP link set veth2 up || setup_failed "veth2 up"
$IP link set veth3 netns dev || setup_failed "veth3 into dev"
$IP -n dev addr add 198.51.100.2/24 dev veth3 || setup_failed "veth3 address"
$IP -n dev link set veth3 up || setup_failed "veth3 up"
$RDMA link add rxe0 type rxe netdev veth0 || setup_failed "rdma link add rxe0"
$RDMA link add rxe1 type rxe netdev veth2 || setup_failed "rdma link add rxe1"

for rxe in rxe0 rxe1; do
    state=/sys/class/infiniband/$rxe/ports/1/state
    for _ in $(seq 100); do
        grep -q ACTIVE $state 2>/dev/null && break
        sleep 0.1
    done
    grep -q ACTIVE $state 2>/dev/null ||
        setup_failed "$rxe port 1 not ACTIVE: $(cat $state 2>&1)"
    say "$($RDMA link show $rxe/1)"
done
# The RDMA core caches hw_counters for a lifespan (10 ms by default): a read within it of
# the last refresh returns the old values. Bursts in the tests are shorter than that on
# a fast machine and longer on a slow one, so a test that read the counters naively
# passed or failed by chance. A long lifespan makes every naive read stale, every run:
# the tests must read counters settled (guest_check.h, rxe_counters_settled).
for rxe in rxe0 rxe1; do
    echo 200 >/sys/class/infiniband/$rxe/ports/1/hw_counters/lifespan ||
        setup_failed "$rxe hw_counters/lifespan"
done

# The SDR: the emulator daemon in namespace dev, sending raw RoCEv2 frames to rxe0 on
# link 0 and to rxe1 on link 1.
# Pinned to CPU 0: veth queues a frame on the backlog of the CPU that sent it, so a
# sender that migrates between CPUs reorders its frames, which a link never does (UC
# rxe accepts every WRITE ONLY whatever its PSN, and immediates then arrive out of
# sequence). The tests run on the other CPU.
# A deep FIFO: the emulated converter drops what it could not send within its FIFO
# depth, and TCG stalls the sender longer than the default 30 ms now and then.
emulator=$(cat $CONF/emulator)
$IP netns exec dev taskset 1 "$emulator" --wire raw --control 192.0.2.2:50100 \
    --link 192.0.2.2+198.51.100.2 --fifo-ms 100 >/tmp/emu.log 2>&1 </dev/null &
emu_pid=$!
for _ in $(seq 200); do
    grep -q "AXIoE on" /tmp/emu.log && break
    kill -0 $emu_pid 2>/dev/null || break
    sleep 0.1
done
grep -q "AXIoE on" /tmp/emu.log || setup_failed "gr-rdma-emu did not start"
say "$(head -1 /tmp/emu.log)"

# Tests find the setup here as well as in guest_check.h; qa_verbs tests on veth0's rxe0.
export RXE_GUEST=1 RXE_GUEST_DEVICE=rxe0 RXE_GUEST_HOST_IP=192.0.2.1 \
    RXE_GUEST_DEVICE_IP=192.0.2.2 RXE_GUEST_CONTROL=192.0.2.2:50100 GR_RDMA_TEST_IF=veth0

# Tests on every CPU but the emulator's (all of them on a single-CPU guest).
cpus=$(grep -c ^processor /proc/cpuinfo)
if [ "$cpus" -gt 1 ]; then TEST_CPUS=$(printf %x $(((1 << cpus) - 2))); else TEST_CPUS=1; fi

if [ "$(cat $CONF/mode)" = shell ]; then
    say "debug shell: rxe0 on veth0 (192.0.2.1), emulator pid $emu_pid in netns dev" \
        "(log /tmp/emu.log), tests in $CONF/tests.list; exit to power off"
    setsid cttyhack sh
    power_off
fi

passed=0
failed=0
# fd 3: the list; the tests get /dev/null as stdin.
while read -r name limit command <&3; do
    case "$name" in '' | '#'*) continue ;; esac
    if ! kill -0 $emu_pid 2>/dev/null; then
        echo "RXE-GUEST: the emulator died before $name:"
        sed 's/^/emu: /' /tmp/emu.log
        emu_pid=none
    fi
    echo "RXE-GUEST-TEST-BEGIN $name: $command"
    t0=$(uptime_s)
    timeout "$limit" taskset "$TEST_CPUS" sh -c "$command" </dev/null
    rc=$?
    seconds=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
    if [ $rc -eq 0 ]; then
        verdict=PASS
        passed=$((passed + 1))
    else
        verdict=FAIL
        failed=$((failed + 1))
        [ $rc -eq 143 ] && echo "RXE-GUEST: $name killed after its ${limit} s limit"
        # Here there is an RDMA device: a test that skips itself has not run.
        [ $rc -eq 77 ] && echo "RXE-GUEST: $name skipped itself although rxe0 exists: counted as failed"
    fi
    echo "RXE-GUEST-RESULT $name $verdict rc=$rc seconds=$seconds"
done 3<$CONF/tests.list

for rxe in rxe0 rxe1; do
    echo "RXE-GUEST: $rxe counters after the tests:"
    for c in /sys/class/infiniband/$rxe/ports/1/hw_counters/*; do
        echo "  $(basename "$c") $(cat "$c")"
    done
done
echo "RXE-GUEST: emulator log:"
sed 's/^/emu: /' /tmp/emu.log
echo "RXE-GUEST-STATUS passed=$passed failed=$failed"
power_off
