/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_IPV4_FRAME_H
#define INCLUDED_RDMA_NIC_IPV4_FRAME_H

#include "../util/socket_address.h"
#include "soft_counters.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace nic {

//! The UDP datagram inside an IPv4 frame.
struct ipv4_udp_view {
    socket_address from;
    socket_address to;
    const uint8_t* udp_payload = nullptr;
    size_t udp_payload_len = 0;
};

/*!
 * Do what the kernel does before rxe sees a frame: check that [frame, frame + len) is
 * one whole, unfragmented IPv4/UDP datagram with valid header checksums (the UDP one
 * when non-zero), addressed to \p local (its IP unless 0.0.0.0; its port or 4791).
 * Bytes after the IP total length (Ethernet padding) are ignored.
 *
 * Returns accepted, drop_truncated (shorter than its headers or IP total length) or
 * drop_bad_ip_header (anything else).
 */
rx_result check_ipv4_udp(const uint8_t* frame,
                         size_t len,
                         const socket_address& local,
                         ipv4_udp_view& out);

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
