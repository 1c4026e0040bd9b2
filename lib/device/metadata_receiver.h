/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_METADATA_RECEIVER_H
#define INCLUDED_RDMA_DEVICE_METADATA_RECEIVER_H

#include "../meta/metadata_packet.h"
#include "../util/udp_socket.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {

//! A metadata record as it reached the host.
struct received_record {
    meta::record record;
    //! Host time (ns since the epoch, CLOCK_REALTIME) the datagram arrived: the
    //! kernel's receive timestamp, else the time it was read (later: still a bound).
    int64_t arrival_ns = 0;
};

struct metadata_counts {
    uint64_t packets = 0;    //!< records accepted
    uint64_t bad = 0;        //!< datagrams dropped: malformed, or not from the device
    uint64_t lost = 0;       //!< sequence numbers never seen
    uint64_t duplicates = 0; //!< sequence numbers seen twice (dropped)
    uint64_t resyncs = 0;    //!< sequence jumps no loss explains: counted afresh
};

/*!
 * The host end of the metadata channel (docs/metadata.md): a UDP socket bound to the
 * NIC's address, drained without blocking. Nothing in a datagram is trusted: it must
 * come from the device's link address and the port its records leave from
 * (MD_SOURCE_UDP_PORT: another process on that host cannot send from it) and parse as a
 * record, else it is counted and dropped; sequence numbers count lost and duplicated
 * packets (a jump no real loss explains is a new base, not a loss).
 *
 * poll() costs one recvmmsg and allocates nothing: records land in a fixed array,
 * valid until the next poll().
 */
class metadata_receiver
{
public:
    static constexpr size_t max_records = 32; //!< per poll()

    //! \p bind_to: the NIC's address (port 0: any). \p device_ip: where records come
    //! from (the device's LINK_IPV4); 0 accepts any source.
    metadata_receiver(const socket_address& bind_to, uint32_t device_ip);
    metadata_receiver(const metadata_receiver&) = delete;
    metadata_receiver& operator=(const metadata_receiver&) = delete;

    //! Where the device must send (MD_DEST_IPV4, MD_DEST_UDP_PORT).
    socket_address local_address() const { return d_socket.local_address(); }
    //! Accept records only from this source port (0: any, for a device that does not
    //! say which: no MD_SOURCE_UDP_PORT).
    void expect_port(uint16_t port) { d_device_port = port; }

    //! Take in what has arrived, up to max_records; returns the records accepted.
    size_t poll();
    const received_record& record(size_t i) const { return d_records[i]; }
    //! Drop everything waiting (records of an earlier run); the counts still see it.
    void discard();

    const metadata_counts& counts() const { return d_counts; }

private:
    static constexpr size_t slot_bytes =
        meta::packet_bytes + 8; // room to see trailing bytes

    udp_socket d_socket;
    const uint32_t d_device_ip;
    uint16_t d_device_port = 0;
    meta::sequence_counter d_sequence;
    metadata_counts d_counts;
    size_t d_last_datagrams = 0; // datagrams the last poll() took in
    std::array<std::array<uint8_t, slot_bytes>, max_records> d_buffers{};
    std::array<received_record, max_records> d_records{};
};

} // namespace rdma
} // namespace gr

#endif
