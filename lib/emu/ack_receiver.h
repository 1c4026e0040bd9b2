/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_ACK_RECEIVER_H
#define INCLUDED_RDMA_EMU_ACK_RECEIVER_H

#include "../util/udp_socket.h"
#include "wire.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! An RC ACKNOWLEDGE that came back for one of the device's queue pairs.
struct rc_ack {
    uint8_t syndrome = 0; //!< AETH syndrome (roce::syndrome)
    uint32_t psn = 0;
    uint32_t msn = 0;
};

/*!
 * The receive side of a link: takes what comes back to the device's RoCEv2 port (RC
 * ACK/NAKs from the host NIC, and READ RESPONSEs for the TX streams), checks it
 * (roce::parse, then the ICRC where the wire can see what it covers) and sorts it by
 * destination QP into one queue per stream, so that streams sharing a link each get
 * their own. Anything else is counted and dropped. The engines call poll() and
 * poll_tx() from their threads without blocking; all memory is allocated at
 * construction.
 */
class ack_receiver
{
public:
    //! ACK/NAKs per stream destination: an engine takes them every pass (tens of µs),
    //! and a host ACKs once per AckReq, so this is many passes of them.
    static constexpr size_t queue_capacity = 256;
    static constexpr size_t batch = 32; //!< datagrams per receive call

    static constexpr size_t tx_queue_capacity = 512; //!< packets per TX stream
    //! Largest packet a TX stream takes: a READ RESPONSE of a 4096-byte path MTU.
    static constexpr size_t tx_packet_bytes = 4160;

    ack_receiver(wire& link, unsigned streams, unsigned tx_streams = 0);
    ack_receiver(const ack_receiver&) = delete;
    ack_receiver& operator=(const ack_receiver&) = delete;

    static constexpr unsigned destinations = 8; //!< per stream, each its own queue

    //! Drain the link, then move up to \p max of stream \p stream's ACK/NAKs for its
    //! destination \p d (oldest first; sent to rx_dest_source_qpn(stream, d)) to
    //! \p out. Returns how many.
    size_t poll(unsigned stream, rc_ack* out, size_t max, unsigned d = 0);
    //! Forget what is queued for \p stream, every destination: a new run starts.
    void clear(unsigned stream);
    //! Drain the link, then move up to \p max of TX stream \p stream's packets (READ
    //! RESPONSEs, ACK/NAKs; parsed and sealed correctly) to \p slots, each
    //! tx_packet_bytes long, their lengths to \p lengths. Returns how many.
    size_t poll_tx(unsigned stream, uint8_t* slots, size_t* lengths, size_t max);
    //! Forget what is queued for TX stream \p stream.
    void clear_tx(unsigned stream);

    //! Datagrams that were not a well-formed, correctly sealed ACKNOWLEDGE.
    uint64_t malformed() const { return d_malformed.load(); }
    //! ACKNOWLEDGEs for a QP that is no stream's.
    uint64_t unknown_qp() const { return d_unknown_qp.load(); }
    //! ACKNOWLEDGEs dropped because their stream's queue was full (nobody polls it).
    uint64_t overflowed() const { return d_overflowed.load(); }

private:
    void drain();
    void sort(const datagram& d);
    //! The queue of the RX stream destination QP \p qpn; false: no stream's.
    bool queue_of(uint32_t qpn, size_t& queue) const;

    wire& d_link;
    const unsigned d_streams;
    const unsigned d_tx_streams;
    const size_t d_slot_bytes;
    std::mutex d_mutex;
    std::vector<uint8_t> d_memory; // batch slots of slot_bytes
    std::vector<datagram> d_slots;
    // One ring buffer of queue_capacity per (stream, destination): queue s * 8 + d.
    std::vector<rc_ack> d_queues;
    std::vector<size_t> d_head;       // per queue: oldest entry
    std::vector<size_t> d_count;      // per queue: entries queued
    std::vector<uint8_t> d_tx_queues; // tx_queue_capacity packets per TX stream
    std::vector<size_t> d_tx_length;  // their lengths
    std::vector<size_t> d_tx_head;
    std::vector<size_t> d_tx_count;
    std::atomic<uint64_t> d_malformed{ 0 };
    std::atomic<uint64_t> d_unknown_qp{ 0 };
    std::atomic<uint64_t> d_overflowed{ 0 };
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
