/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "message_builder.h"
#include "udp_sample_builder.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace emu {

namespace {
// BTH + RETH + ImmDt: the largest header set the engine sends.
constexpr size_t max_headers = roce::bth_bytes + roce::reth_bytes + roce::immdt_bytes;
} // namespace

size_t message_builder::slot_bytes_for(uint32_t path_mtu)
{
    const size_t bytes = wire::headroom + max_headers + path_mtu + 3 + roce::icrc_bytes;
    return (bytes + 63) & ~size_t(63);
}

message_builder::message_builder(const rx_descriptor& d, const sample_source* source)
    : d_desc(d),
      d_own_source(
          source ? nullptr
                 : std::make_unique<test_signal_source>(
                       d.signal,
                       d.first_message * (d.payload_bytes / item_size(d.signal.format)))),
      d_source(source ? source : d_own_source.get()),
      d_end(d.num_samples ? d.num_samples : UINT64_MAX),
      d_item(item_size(d.signal.format)),
      d_spm(d.payload_bytes / item_size(d.signal.format)),
      d_packets_per_message((d.payload_bytes + d.path_mtu - 1) / d.path_mtu),
      d_ack_every(std::max<uint64_t>(1, ack_packets / d_packets_per_message)),
      d_transport(d.transport == regs::transport_type::rc ? roce::opcode::rc
                                                          : roce::opcode::uc),
      d_first(d.first_message),
      d_notify_origin(d.notify_from_first ? 0 : d.first_message),
      d_slots_in_ring(std::max<uint64_t>(1, d.ring_bytes / d.payload_bytes))
{
}

uint64_t message_builder::total_messages() const
{
    return d_end != UINT64_MAX ? (d_end + d_spm - 1) / d_spm : UINT64_MAX;
}

uint64_t message_builder::samples_in(uint64_t message) const
{
    if (d_end == UINT64_MAX)
        return d_spm;
    const uint64_t first = message * d_spm;
    return first >= d_end ? 0 : std::min(d_spm, d_end - first);
}

size_t message_builder::packets_in(uint64_t message) const
{
    const size_t bytes = samples_in(message) * d_item;
    return (bytes + d_desc.path_mtu - 1) / d_desc.path_mtu;
}

bool message_builder::has_immediate(uint64_t message) const
{
    const bool last_of_burst =
        d_end != UINT64_MAX && message * d_spm + samples_in(message) == d_end;
    return last_of_burst ||
           (d_desc.notify_interval &&
            (d_notify_origin + message + 1) % d_desc.notify_interval == 0);
}

bool message_builder::ack_requested(uint64_t message) const
{
    if (d_transport != roce::opcode::rc)
        return false;
    // The last message of a burst too: the device must learn that the burst arrived
    // whole, and a lost tail is found by the timer that waits for this ACK.
    const bool last_of_burst =
        d_end != UINT64_MAX && message * d_spm + samples_in(message) == d_end;
    return last_of_burst || (message + 1) % d_ack_every == 0;
}

size_t message_builder::build(uint64_t message,
                              uint32_t fault,
                              uint8_t* slots,
                              size_t slot_bytes,
                              outgoing_packet* out)
{
    resend whole;
    whole.message = message;
    whole.count = packets_in(message);
    return emit(whole, fault, slots, slot_bytes, out);
}

void message_builder::skip(uint64_t message)
{
    if (d_router)
        d_router->route(d_first + message, packets_in(message), end_number());
}

size_t message_builder::rebuild(const resend& r,
                                uint8_t* slots,
                                size_t slot_bytes,
                                outgoing_packet* out)
{
    return emit(r, regs::fault::none, slots, slot_bytes, out);
}

size_t message_builder::emit(const resend& r,
                             uint32_t fault,
                             uint8_t* slots,
                             size_t slot_bytes,
                             outgoing_packet* out)
{
    const rx_descriptor& d = d_desc;
    const uint64_t message = r.message;
    const uint64_t first_sample = message * d_spm;
    const size_t message_bytes = samples_in(message) * d_item;
    const size_t packets = packets_in(message);
    const uint64_t number = d_first + message; // where it lands, what it says
    // One destination: the RX block's. Several: the router's, asked once per message.
    message_route route;
    if (d_router && r.route) {
        route = *r.route; // a resend goes where its first send went
    } else if (d_router) {
        route = d_router->route(number, packets, end_number());
    } else {
        route.dest_qpn = d.dest_qpn;
        route.first_psn =
            static_cast<uint32_t>(d.start_psn + message * d_packets_per_message);
        route.rkey = d.rkey;
        route.va = d.va + (number % d_slots_in_ring) * d.payload_bytes;
        route.ring_end = d.va + d.ring_bytes;
        route.immediate = has_immediate(message);
        route.imm = static_cast<uint32_t>(number);
    }
    const bool with_imm = route.immediate;
    // Routed RC: every message asks, each destination being its own requester, whose
    // last message of a burst is not known when it leaves.
    const bool ack_on_last =
        ack_requested(message) || (d_router && d_transport == roce::opcode::rc);
    const uint32_t imm = route.imm;

    // The RETH describes the whole message, also when only its FIRST is resent.
    roce::reth reth;
    reth.va = route.va;
    reth.rkey = route.rkey;
    reth.dma_length = static_cast<uint32_t>(message_bytes);
    if (fault == regs::fault::bad_rkey)
        reth.rkey = route.rkey + 1;
    if (fault == regs::fault::bad_va) // the first byte past the registered ring
        reth.va = route.ring_end;

    const size_t end = std::min(packets, r.first_packet + r.count);
    size_t built = 0;
    for (size_t j = r.first_packet; j < end; j++, built++) {
        const size_t offset = j * d.path_mtu;
        const size_t bytes = std::min<size_t>(d.path_mtu, message_bytes - offset);
        const bool first = j == 0, last = j + 1 == packets;
        uint8_t op;
        if (first && last)
            op = with_imm ? roce::opcode::write_only_imm : roce::opcode::write_only;
        else if (first)
            op = roce::opcode::write_first;
        else if (last)
            op = with_imm ? roce::opcode::write_last_imm : roce::opcode::write_last;
        else
            op = roce::opcode::write_middle;
        roce::bth bth;
        bth.opcode = d_transport | op;
        bth.pad_count = roce::pad_for(bytes);
        bth.dest_qp = route.dest_qpn;
        bth.ack_req = (last && ack_on_last) || (r.ack_last && j + 1 == end);
        bth.psn = static_cast<uint32_t>(route.first_psn + j) & 0xFFFFFF;

        uint8_t* packet = slots + built * slot_bytes + wire::headroom;
        const size_t headers = roce::write_headers(packet, bth, &reth, &imm);
        if (r.zeros)
            std::memset(packet + headers, 0, bytes);
        else
            d_source->generate(
                first_sample + offset / d_item, bytes / d_item, packet + headers);
        outgoing_packet& p = out[built];
        p = outgoing_packet{};
        p.udp_payload = packet;
        p.length = roce::finish(packet, headers, bytes);
        p.ends_message = last;
        p.immediate = last && with_imm;
        p.destination = route.destination;
        p.message_samples = last ? static_cast<uint32_t>(samples_in(message)) : 0;
        p.ack_req = bth.ack_req;
        if (fault == regs::fault::corrupt_icrc)
            p.flip_after_seal = static_cast<int32_t>(p.length - 1);
        else if (fault == regs::fault::corrupt_payload && bytes > 0)
            p.flip_after_seal = static_cast<int32_t>(headers + bytes / 2);
    }
    return built;
}

std::unique_ptr<packetizer> make_packetizer(const rx_descriptor& d,
                                            const sample_source* source)
{
    if (d.transport == regs::transport_type::udp)
        return std::make_unique<udp_sample_builder>(d, source);
    return std::make_unique<message_builder>(d, source);
}

} // namespace emu
} // namespace rdma
} // namespace gr
