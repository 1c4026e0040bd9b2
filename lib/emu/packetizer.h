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
    virtual size_t
    build(uint64_t message, uint32_t fault, uint8_t* slots, size_t slot_bytes, outgoing_packet* out) = 0;
    //! Account for a message lost before the wire (sequence numbers move on).
    virtual void skip(uint64_t message) = 0;
};

//! The packetizer for \p d's transport (UC: RoCEv2 WRITE messages).
std::unique_ptr<packetizer> make_packetizer(const rx_descriptor& d);

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
