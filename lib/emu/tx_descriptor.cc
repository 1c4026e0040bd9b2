/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What a TX START checks (docs/register-map.md, "TX stream": the error codes).

#include "../roce/roce_packet.h"
#include "tx_descriptor.h"
#include "wire.h"

namespace gr {
namespace rdma {
namespace emu {

namespace {
constexpr uint32_t max_payload_bytes = 65536;
// A READ RESPONSE FIRST/LAST: BTH + AETH + payload + ICRC, behind IPv4 and UDP.
constexpr size_t response_overhead =
    wire::headroom + roce::bth_bytes + roce::aeth_bytes + roce::icrc_bytes;
} // namespace

uint32_t validate(const tx_descriptor& d, unsigned link_mtu)
{
    namespace ec = regs::error_code;
    const uint32_t fmt = static_cast<uint32_t>(d.format);
    if (fmt != regs::format::sc16 && fmt != regs::format::fc32 &&
        fmt != regs::format::sc8)
        return ec::bad_format;
    const size_t item = item_size(d.format);
    if (!roce::valid_path_mtu(d.path_mtu) || d.path_mtu + response_overhead > link_mtu)
        return ec::bad_mtu;
    if (d.payload_bytes == 0 || d.payload_bytes % item ||
        d.payload_bytes > max_payload_bytes)
        return ec::bad_payload;
    if (d.ring_bytes == 0 || d.ring_bytes % d.payload_bytes || d.va + d.ring_bytes < d.va)
        return ec::bad_ring;
    if (d.rate_num == 0 || d.rate_den == 0)
        return ec::bad_rate;
    if (d.host.ip() == 0 || d.host.port() == 0 || d.host_qpn == 0 ||
        d.host_qpn > 0xFFFFFF)
        return ec::bad_destination;
    if (d.link_mask != 1)
        return ec::bad_link;
    if (d.ctrl_va == 0 || d.ctrl_va % 8)
        return ec::bad_control_page;
    if (d.max_rd_atomic == 0 || d.max_rd_atomic > regs::tx::max_read_depth)
        return ec::bad_read_depth;
    return ec::none;
}

} // namespace emu
} // namespace rdma
} // namespace gr
