/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "message_builder.h"
#include "rx_descriptor.h"
#include "udp_sample_builder.h"
#include "wire.h"

namespace gr {
namespace rdma {
namespace emu {

namespace {
constexpr uint32_t max_payload_bytes = 65536;
// BTH + RETH + ImmDt, the largest header set the engine sends.
constexpr size_t max_headers = roce::bth_bytes + roce::reth_bytes + roce::immdt_bytes;
} // namespace

uint32_t validate(const rx_descriptor& d, unsigned link_mtu)
{
    namespace ec = regs::error_code;
    const uint32_t fmt = static_cast<uint32_t>(d.signal.format);
    if (fmt != regs::format::sc16 && fmt != regs::format::fc32 &&
        fmt != regs::format::sc8)
        return ec::bad_format;
    const size_t item = item_size(d.signal.format);
    if (d.payload_bytes == 0 || d.payload_bytes % item ||
        d.payload_bytes > max_payload_bytes)
        return ec::bad_payload;
    if (!roce::valid_path_mtu(d.path_mtu) ||
        d.path_mtu + wire::headroom + max_headers + roce::icrc_bytes > link_mtu)
        return ec::bad_mtu;
    if (d.ring_bytes == 0 || d.ring_bytes % d.payload_bytes || d.va + d.ring_bytes < d.va)
        return ec::bad_ring;
    if (d.rate_num == 0 || d.rate_den == 0)
        return ec::bad_rate;
    if (d.destination.ip() == 0 || d.destination.port() == 0 || d.dest_qpn == 0)
        return ec::bad_destination;
    if (d.transport != regs::transport_type::uc &&
        d.transport != regs::transport_type::rc &&
        d.transport != regs::transport_type::udp)
        return ec::bad_transport;
    if (d.transport == regs::transport_type::udp &&
        !udp_sample_builder::fits(d, link_mtu))
        return ec::bad_payload; // one datagram per message
    if ((d.payload_bytes + d.path_mtu - 1) / d.path_mtu * 2 > max_batch_packets)
        return ec::bad_payload; // a duplicated message must fit in one batch
    return ec::none;
}

} // namespace emu
} // namespace rdma
} // namespace gr
