/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_MESSAGE_BUILDER_H
#define INCLUDED_RDMA_EMU_MESSAGE_BUILDER_H

#include "packetizer.h"
#include "rx_descriptor.h"
#include "sample_source.h"
#include "wire.h"
#include <memory>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Cuts the sample stream into RoCEv2 packets: message m carries samples
 * [m*spm, (m+1)*spm) (the last of a burst fewer) and is numbered n = first_message + m
 * (RX_FIRST_MESSAGE, docs/radio.md); it goes to ring offset (n * payload) mod
 * ring_bytes, and is one WRITE ONLY packet, or FIRST/MIDDLE/LAST above the path MTU;
 * every message with (n + 1) mod notify_interval == 0 (a queued burst: counted from its
 * first message) and the last of a burst carry n (its low 32 bits) as immediate data.
 * Packet j of message m has PSN start_psn + m * ceil(payload / path MTU) + j (mod 2^24):
 * PSNs advance by one per packet, also for messages lost on the way, and any packet can
 * be built again. With a router (several destinations) the router decides each
 * message's QP, PSNs, address and immediate instead, once per message: an RC resend
 * names the route its first send took (resend::route).
 *
 * UC opcodes (0x2x) or, with transport RC, RC opcodes (0x0x) with AckReq on the last
 * packet of every message that ends a group of ack_packets packets, and of the last
 * message of a burst; routed, of every message (docs/roce-wire.md, RC profile).
 */
class message_builder : public packetizer
{
public:
    //! RC: the host is asked for an ACK about once per this many packets.
    static constexpr size_t ack_packets = 16;

    //! Messages of \p d's samples from \p source (null: \p d's test signal).
    explicit message_builder(const rx_descriptor& d,
                             const sample_source* source = nullptr);

    //! Bytes a packet slot needs (headroom + headers + payload + pad + ICRC).
    static size_t slot_bytes_for(uint32_t path_mtu);

    uint64_t samples_per_message() const override { return d_spm; }
    uint64_t total_messages() const override;
    uint64_t samples_in(uint64_t message) const override;
    size_t packets_in(uint64_t message) const override;
    bool has_immediate(uint64_t message) const;
    bool ack_requested(uint64_t message) const override;
    //! The stream message after a finite run's last (the router's end); 0: continuous.
    uint64_t end_number() const
    {
        return d_end == UINT64_MAX ? 0 : d_first + total_messages();
    }

    /*!
     * Build message \p message into consecutive slots of \p slot_bytes at \p slots and
     * describe the packets in \p out; \p fault (regs::fault) alters headers or marks a
     * bit to flip after sealing. Returns the number of packets.
     */
    size_t build(uint64_t message,
                 uint32_t fault,
                 uint8_t* slots,
                 size_t slot_bytes,
                 outgoing_packet* out) override;
    //! PSNs follow from the message number: nothing to consume (but a router's).
    void skip(uint64_t message) override;
    void set_router(message_router* router) override { d_router = router; }
    void end_at(uint64_t samples) override { d_end = samples; }
    size_t rebuild(const resend& r,
                   uint8_t* slots,
                   size_t slot_bytes,
                   outgoing_packet* out) override;

private:
    size_t emit(const resend& r,
                uint32_t fault,
                uint8_t* slots,
                size_t slot_bytes,
                outgoing_packet* out);

    const rx_descriptor d_desc;
    std::unique_ptr<sample_source> d_own_source; // without one given
    const sample_source* const d_source;
    uint64_t d_end; // samples of the run: RX_NUM_SAMPLES, or UINT64_MAX (continuous)
    const size_t d_item;
    const uint64_t d_spm;
    const uint64_t d_packets_per_message; // of a whole message: PSN stride
    const uint64_t d_ack_every;           // RC: AckReq on every this-many-th message
    const uint8_t d_transport;            // roce::opcode::uc or rc
    const uint64_t d_first;               // RX_FIRST_MESSAGE: message m is d_first + m
    const uint64_t d_notify_origin;       // notifications count from this number
    const uint64_t d_slots_in_ring;       // ring_bytes / payload_bytes
    message_router* d_router = nullptr;   // several destinations: where each goes
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
