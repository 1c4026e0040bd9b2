/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_PACKETIZER_H
#define INCLUDED_RDMA_EMU_PACKETIZER_H

#include "rx_descriptor.h"
#include "wire.h"
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * How an RX engine turns the sample stream into packets. The stream is cut into
 * messages of payload_bytes of samples (the last of a burst shorter); a packetizer
 * decides what a message looks like on the wire: RoCEv2 WRITEs (message_builder) or,
 * for the benchmarks' baseline, plain UDP sample datagrams. The engine paces, batches,
 * impairs and counts; it does not look inside packets.
 */
//! Where one message of a stream over several destinations goes (docs/register-map.md,
//! "Several links"): what its packets carry instead of the RX block's destination.
struct message_route {
    uint8_t destination = 0;
    uint32_t dest_qpn = 0;
    uint32_t first_psn = 0; //!< of its first packet: the destination's own sequence
    uint32_t rkey = 0;
    uint64_t va = 0;       //!< where its first byte lands
    uint64_t ring_end = 0; //!< the first byte past that destination's ring
    bool immediate = false;
    uint32_t imm = 0;
};

//! Decides each message's route; the packetizer asks once per message, in order.
class message_router
{
public:
    virtual ~message_router() = default;
    //! The route of stream message \p message (RX_FIRST_MESSAGE + the run's index), of
    //! \p packets packets, in a run that ends before message \p end (0: continuous).
    //! Consumes the destination's PSNs: also for a message lost before the wire.
    virtual message_route route(uint64_t message, size_t packets, uint64_t end) = 0;
};

class packetizer
{
public:
    virtual ~packetizer() = default;
    virtual uint64_t samples_per_message() const = 0;
    //! Messages in a finite burst; UINT64_MAX when continuous.
    virtual uint64_t total_messages() const = 0;
    virtual uint64_t samples_in(uint64_t message) const = 0;
    virtual size_t packets_in(uint64_t message) const = 0;
    /*!
     * Build message \p message into consecutive slots of \p slot_bytes at \p slots and
     * describe its packets in \p out; \p fault (regs::fault) alters it as documented.
     * Returns the number of packets.
     */
    virtual size_t build(uint64_t message,
                         uint32_t fault,
                         uint8_t* slots,
                         size_t slot_bytes,
                         outgoing_packet* out) = 0;
    //! Account for a message lost before the wire (sequence numbers move on).
    virtual void skip(uint64_t message) = 0;
    //! End the run after \p samples samples, as a finite burst of that many (a timed
    //! STOP): no message built yet may hold a sample at or after it.
    virtual void end_at(uint64_t samples) = 0;

    //! Route every message through \p router (null: the RX block's destination).
    virtual void set_router(message_router* /*router*/) {}

    //! RC: whether the last packet of \p message asks the host for an ACK (AckReq).
    virtual bool ack_requested(uint64_t /*message*/) const { return false; }

    //! An RC retransmission: packets [first_packet, first_packet + count) of a message.
    struct resend {
        uint64_t message = 0;
        size_t first_packet = 0;
        size_t count = 0;
        bool zeros = false;    //!< zero substitution: an all-zero payload, same length
        bool ack_last = false; //!< set AckReq on the last packet built
        //! A routed message: the route its first send took (null: one destination; or,
        //! routed, a first send as zeros, which the router routes now).
        const message_route* route = nullptr;
    };
    /*!
     * Build packets of a message again, as they were first sent (same PSNs, headers
     * and payload) but without any injected fault, for an RC retransmission. Returns
     * the number built; 0 if this packetizer cannot resend (no RC).
     */
    virtual size_t rebuild(const resend& /*r*/,
                           uint8_t* /*slots*/,
                           size_t /*slot_bytes*/,
                           outgoing_packet* /*out*/)
    {
        return 0;
    }
};

class sample_source;

//! The packetizer for \p d's transport (RoCEv2 WRITE messages, UC or RC), filling
//! messages from \p source (null: \p d's test signal).
std::unique_ptr<packetizer> make_packetizer(const rx_descriptor& d,
                                            const sample_source* source = nullptr);

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
