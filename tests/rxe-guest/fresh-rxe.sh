#!/bin/sh
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# fresh-rxe.sh COMMAND...: delete rxe0 and rxe1 and add them again on the same veths,
# then run COMMAND. Fresh rxe devices hand out QP numbers from the same first one
# (0x11), so the host's QPs on rxe0 and rxe1 share a number, as two NICs of one host
# may (rxe_links_same_qpn_test). Runs in the rxe guest (guest-init.sh made both).
RDMA=/usr/bin/rdma
for pair in rxe0:veth0 rxe1:veth2; do
    dev=${pair%%:*}
    netdev=${pair##*:}
    $RDMA link delete "$dev" || { echo "fresh-rxe: rdma link delete $dev failed"; exit 1; }
    $RDMA link add "$dev" type rxe netdev "$netdev" ||
        { echo "fresh-rxe: rdma link add $dev failed"; exit 1; }
done
for dev in rxe0 rxe1; do
    state=/sys/class/infiniband/$dev/ports/1/state
    for _ in $(seq 100); do
        grep -q ACTIVE "$state" 2>/dev/null && break
        sleep 0.1
    done
    grep -q ACTIVE "$state" 2>/dev/null || { echo "fresh-rxe: $dev not ACTIVE"; exit 1; }
    # As guest-init.sh: counters read settled (guest_check.h).
    echo 200 >/sys/class/infiniband/$dev/ports/1/hw_counters/lifespan || exit 1
done
exec "$@"
