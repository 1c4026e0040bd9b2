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
 * RX stream and one per TX stream (stream byte 0x80 + t, docs/metadata.md "TX
 * records"); each stream reads its own inbox (metadata_monitor, tx_watch). Whichever
 * stream polls drains the socket for all (non-blocking, at most a poll period apart per
 * stream), so no thread of its own is needed.
 *
 * An inbox holds inbox_records; a stream that does not poll for longer than that many
 * records take loses the oldest, counted (overflowed()). A TX inbox takes records only
 * while a TX stream of this process is attached to it (configure_tx() .. detach_tx()):
 * records of a TX stream nobody here has, or of a stream index beyond the register
 * map's, are counted (unclaimed()) and dropped.
 */
class metadata_intake
{
public:
    static constexpr size_t inbox_records = 256;
    static constexpr unsigned max_streams = 16;    // the register map's RX streams
    static constexpr unsigned max_tx_streams = 16; // its TX blocks, 0x3000 + 0x100 t

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
    /*!
     * As configure(), for TX stream \p tx_stream: attaches its inbox (from now on it
     * takes the stream's records) and drops what waits in it.
     */
    void configure_tx(axioe::client& device, uint32_t interval_us, unsigned tx_stream);
    //! From now on TX stream \p tx_stream's records go to its inbox (emptied).
    void attach_tx(unsigned tx_stream);
    //! TX stream \p tx_stream's records are nobody's again (its inbox emptied).
    void detach_tx(unsigned tx_stream);

    //! Take in what arrived for all streams; copy up to \p max records of \p stream
    //! into \p out, oldest first; returns how many.
    size_t poll(unsigned stream, received_record* out, size_t max);
    //! As poll(), for TX stream \p tx_stream (its record.stream is 0x80 + tx_stream).
    size_t poll_tx(unsigned tx_stream, received_record* out, size_t max);

    metadata_counts counts() const;
    //! Records of \p stream lost because its inbox was full.
    uint64_t overflowed(unsigned stream) const;
    uint64_t tx_overflowed(unsigned tx_stream) const;
    //! Records of streams nobody here has (an unattached TX stream, an index beyond
    //! the register map's), dropped.
    uint64_t unclaimed() const;

private:
    struct inbox {
        std::array<received_record, inbox_records> records{};
        uint64_t head = 0; // next to read
        uint64_t tail = 0; // next to write
        uint64_t overflowed = 0;
    };

    // Under d_mutex.
    void drain();
    void program(axioe::client& device, uint32_t interval_us);
    static void put(inbox& box, const received_record& r);
    static size_t take(inbox& box, received_record* out, size_t max);

    mutable std::mutex d_mutex;
    metadata_receiver d_receiver;
    std::array<inbox, max_streams> d_inboxes{};
    std::array<inbox, max_tx_streams> d_tx_inboxes{};
    std::array<bool, max_tx_streams> d_tx_attached{};
    uint64_t d_unclaimed = 0;
};

} // namespace rdma
} // namespace gr

#endif
