/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_METADATA_SENDER_H
#define INCLUDED_RDMA_EMU_METADATA_SENDER_H

#include "../axioe/axioe_packet.h"
#include "../meta/metadata_packet.h"
#include "../util/udp_socket.h"
#include "metadata_sink.h"
#include <cstdint>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! The metadata block's registers at one instant (docs/register-map.md).
struct metadata_registers {
    uint32_t dest_ipv4 = 0;
    uint32_t dest_udp_port = 0;
    uint32_t interval_us = 0; //!< periodic timestamps; 0: none
    uint32_t control = 0;     //!< bit 0: enable
    uint64_t packets_sent = 0;
    uint64_t packets_dropped = 0;
    uint32_t source_udp_port = 0; //!< where the records leave from (read-only)
};

/*!
 * The device's metadata channel (docs/metadata.md): turns what the RX and TX engines
 * report into 40-byte records and sends them by UDP, from the link's address, to the
 * destination the host programmed in the metadata register block. A conventional
 * socket, apart from the RDMA path: metadata never travels inside the sample stream.
 *
 * Calls from the engines never block and never allocate: a record is encoded on the
 * stack and sent with one non-blocking sendto; a full socket buffer drops it (counted,
 * and the host sees the hole in the sequence numbers). Timestamps are rate-limited in
 * device time: one when the latest sample is at least MD_INTERVAL_US after the previous
 * timestamp (or the start). One lock orders sequence numbers as packets leave.
 */
class metadata_sender : public metadata_sink
{
public:
    //! \p bind_to: the link's IPv4 address (port 0: any). \p streams: RX streams.
    metadata_sender(const socket_address& bind_to, unsigned streams);
    metadata_sender(const metadata_sender&) = delete;
    metadata_sender& operator=(const metadata_sender&) = delete;

    socket_address local_address() const { return d_socket.local_address(); }

    // ---- The register block (register_file serves AXIoE accesses through these) ----
    metadata_registers registers() const;
    //! Read register \p offset (from the block's base) of snapshot \p r.
    static axioe::status
    read_register(const metadata_registers& r, uint32_t offset, uint32_t& value);
    //! Execute a write burst inside the block: checked whole first, so a refused burst
    //! changes nothing; applied at one instant.
    axioe::status
    write_registers(uint32_t offset, const uint32_t* words, size_t count, bool fixed);
    //! The rate of RX stream \p stream, latched by its START (before stream_started()).
    void configure_stream(unsigned stream, uint32_t rate_num, uint32_t rate_den);

    // ---- metadata_sink: called by the RX engines ----
    void
    stream_started(unsigned stream, uint64_t t0_ns, uint64_t first_sample = 0) override;
    void progress(unsigned stream, uint64_t samples) override;
    void stream_ended(unsigned stream, uint64_t samples) override;
    void event(unsigned stream, uint32_t code, uint64_t sample, uint64_t value) override;
    void tx_event(unsigned tx_stream,
                  uint32_t code,
                  uint64_t sample,
                  uint64_t time_ns,
                  uint64_t value) override;

private:
    struct stream_state {
        uint32_t rate_num = 0;
        uint32_t rate_den = 1;
        uint64_t t0_ns = 0;
        uint64_t first_sample = 0;      // taken at t0_ns (a queued burst's first item)
        uint64_t next_timestamp_ns = 0; // device time the next timestamp is due at
    };

    uint64_t time_of(const stream_state& s, uint64_t sample) const;
    bool enabled() const;
    void send(meta::record& r); // holds d_mutex

    udp_socket d_socket;
    mutable std::mutex d_mutex;
    metadata_registers d_regs;           // guarded by d_mutex
    uint32_t d_sequence = 0;             // guarded by d_mutex: next packet's number
    std::vector<stream_state> d_streams; // guarded by d_mutex
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
