/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The input layout of fuzz_tx_response, shared by the target (fuzz_tx_response.cc) and
// the program that writes its seeds with the project's codec (tx_response_seeds.cc).
//
// byte 0: bits 0..2 path MTU (256 << n, at most 4096); bit 3 the wire's ICRC verdict;
//         bits 4..7 sample READs requested before the first record;
// byte 1: EMU_TX_LOSS_PPM = byte · 3922 (at most 1000000);
// bytes 2..4: TX_START_PSN (24 bits, big-endian);
// then records of [flags][length hi][length lo][datagram of that length][action]:
//   flags bit 0: DestQP := the stream's QPN (tx_source_qpn(0));
//   flags bit 1: PSN := the first PSN of outstanding request (flags >> 2) & 3 (modulo
//                those outstanding) + (flags >> 4);
//   action bits 0..1: then request 0 nothing, 1 a sample READ, 2 a control READ,
//                3 a notification; bits 2..7: the clock advances by that · 50 µs.
// Sample READ j reads sample_read_length(j, mtu) bytes at sample_read_va(j).

#ifndef INCLUDED_RDMA_FUZZ_TX_RESPONSE_LAYOUT_H
#define INCLUDED_RDMA_FUZZ_TX_RESPONSE_LAYOUT_H

#include <algorithm>
#include <cstdint>

namespace tx_response_layout {

constexpr size_t header_bytes = 5;
constexpr uint32_t host_qpn = 0x4321;
constexpr uint32_t ring_rkey = 0x1111;
constexpr uint32_t control_rkey = 0x2222;
constexpr uint64_t ring_va = 0x7f0000000000ull;
constexpr uint64_t control_va = 0x7f0000800000ull;
constexpr uint32_t control_bytes = 16;
constexpr int64_t tick_ns = 50000;

enum action : uint8_t { none = 0, sample_read = 1, control_read = 2, notify = 3 };

inline unsigned mtu_of(uint8_t byte0) { return 256u << std::min(4, byte0 & 7); }
inline uint32_t loss_ppm_of(uint8_t byte1)
{
    return std::min<uint32_t>(1000000, uint32_t(byte1) * 3922);
}
//! One, two or three packets, the two-packet READ ending short (a LAST of mtu - 4).
inline uint32_t sample_read_length(uint64_t j, unsigned mtu)
{
    return static_cast<uint32_t>((1 + j % 3) * mtu - 4 * (j % 2));
}
inline uint64_t sample_read_va(uint64_t j) { return ring_va + j * 65536; }
inline uint32_t packets_of(uint32_t length, unsigned mtu)
{
    return length == 0 ? 1 : (length + mtu - 1) / mtu;
}

} // namespace tx_response_layout

#endif
