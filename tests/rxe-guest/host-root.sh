#!/bin/busybox sh
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# host-root <command> [args...]: run a command inside the host's root filesystem, which
# qemu shares read-only (-virtfs, mount tag "hostroot"; run-rxe-guest.sh), with the
# guest's /proc, /sys and /dev, and a fresh /run and /root. The initramfs holds only
# C++ programs and their libraries; what needs Python and GNU Radio (gr-rdma-rx) runs
# here, on the guest's kernel and its rxe0, as a user runs it on a host.
# Writes go to /run and /root only: the host's files cannot be changed from the guest.
set -e
H=/host
if ! grep -q " $H 9p " /proc/mounts; then
    mkdir -p $H
    # cache=loose: the host's files do not change while the guest runs; reading
    # Python's modules is then done once.
    mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 hostroot $H
    mount -o bind /proc $H/proc
    mount -o bind /sys $H/sys
    mount -o bind /dev $H/dev
    mount -t tmpfs run $H/run
    mount -t tmpfs home $H/root
fi
exec chroot $H /usr/bin/env -i HOME=/root TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
