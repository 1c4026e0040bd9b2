/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_METADATA_INTAKE_H
#define INCLUDED_RDMA_DEVICE_METADATA_INTAKE_H

#include "../axioe/axioe_client.h"
#include "metadata_receiver.h"
#include <array>
#include <mutex>

namespace gr {
namespace rdma {

/*!
 * A device's metadata channel, as the streams of this process share it. The device has
 * one metadata block (docs/metadata.md): one destination for the records of all its
 * streams. So one receiver per device takes them in, and sorts them into an inbox per
 * RX stream; each stream reads its own inbox (metadata_monitor). Whichever stream polls
 * drains the socket for all (non-blocking, at most a poll period apart per stream), so
 * no thread of its own is needed.
 *
 * An inbox holds inbox_records; a stream that does not poll for longer than that many
 * records take loses the oldest, counted (overflowed()).
 */
class metadata_intake
{
public:
    static constexpr size_t inbox_records = 256;
    static constexpr unsigned max_streams = 16; // the register map's RX streams

    //! \p bind_to: the host address to receive on (port 0: any); \p device_ip: where
    //! records come from (the device's link address).
    metadata_intake(const socket_address& bind_to, uint32_t device_ip);
    metadata_intake(const metadata_intake&) = delete;
    metadata_intake& operator=(const metadata_intake&) = delete;

    socket_address local_address() const { return d_receiver.local_address(); }

    /*!
     * Point the device's metadata block here (one burst: destination, interval,
     * enable) and learn the port its records come from. The interval is the device's,
     * not a stream's: the last configure() sets it for all streams. Drops what waits in
     * \p stream's inbox (records of its earlier run).
     */
    void configure(axioe::client& device, uint32_t interval_us, unsigned stream);

    //! Take in what arrived for all streams; copy up to \p max records of \p stream
    //! into \p out, oldest first; returns how many.
    size_t poll(unsigned stream, received_record* out, size_t max);

    metadata_counts counts() const;
    //! Records of \p stream lost because its inbox was full.
    uint64_t overflowed(unsigned stream) const;

private:
    struct inbox {
        std::array<received_record, inbox_records> records{};
        uint64_t head = 0; // next to read
        uint64_t tail = 0; // next to write
        uint64_t overflowed = 0;
    };

    void drain(); // under d_mutex

    mutable std::mutex d_mutex;
    metadata_receiver d_receiver;
    std::array<inbox, max_streams> d_inboxes{};
};

} // namespace rdma
} // namespace gr

#endif
