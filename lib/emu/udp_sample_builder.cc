/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "udp_sample_builder.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

size_t udp_sample_builder::slot_bytes_for(uint32_t payload_bytes)
{
    const size_t bytes = wire::headroom + header_bytes + payload_bytes;
    return (bytes + 63) & ~size_t(63);
}

bool udp_sample_builder::fits(const rx_descriptor& d, unsigned link_mtu)
{
    return size_t(d.payload_bytes) + header_bytes + wire::headroom <= link_mtu;
}

udp_sample_builder::udp_sample_builder(const rx_descriptor& d,
                                       const sample_source* source)
    : d_end(d.num_samples ? d.num_samples : UINT64_MAX),
      d_own_source(source ? nullptr : std::make_unique<test_signal_source>(d.signal)),
      d_source(source ? source : d_own_source.get()),
      d_item(item_size(d.signal.format)),
      d_spm(d.payload_bytes / item_size(d.signal.format))
{
}

uint64_t udp_sample_builder::total_messages() const
{
    return d_end != UINT64_MAX ? (d_end + d_spm - 1) / d_spm : UINT64_MAX;
}

uint64_t udp_sample_builder::samples_in(uint64_t message) const
{
    if (d_end == UINT64_MAX)
        return d_spm;
    const uint64_t first = message * d_spm;
    return first >= d_end ? 0 : std::min(d_spm, d_end - first);
}

size_t udp_sample_builder::build(
    uint64_t message, uint32_t fault, uint8_t* slots, size_t, outgoing_packet* out)
{
    const size_t bytes = samples_in(message) * d_item;
    if (bytes == 0)
        return 0;
    uint8_t* datagram = slots + wire::headroom;
    for (size_t i = 0; i < header_bytes; i++) // network byte order
        datagram[i] = static_cast<uint8_t>(message >> (8 * (header_bytes - 1 - i)));
    d_source->generate(message * d_spm, bytes / d_item, datagram + header_bytes);
    outgoing_packet& p = out[0];
    p = outgoing_packet{};
    p.udp_payload = datagram;
    p.length = header_bytes + bytes;
    p.roce = false;
    if (fault == regs::fault::corrupt_icrc || fault == regs::fault::corrupt_payload)
        p.flip_after_seal = static_cast<int32_t>(header_bytes + bytes / 2);
    return 1;
}

} // namespace emu
} // namespace rdma
} // namespace gr
