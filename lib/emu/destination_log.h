/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DESTINATION_LOG_H
#define INCLUDED_RDMA_EMU_DESTINATION_LOG_H

#include "packetizer.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The messages one destination of an RC stream over several destinations was sent,
 * in its own packet sequence (docs/links.md, "RC over several links"): packet j of the
 * destination is PSN DST_START_PSN + j, and a retransmission of j must rebuild the
 * message that held it with the route it had (the schedule is not asked again). Holds
 * the newest `capacity` messages; memory is allocated at construction.
 */
class destination_log
{
public:
    struct entry {
        uint64_t first_packet = 0; //!< the destination's packet index of its first
        uint64_t message = 0;      //!< the stream's message number
        size_t packets = 0;
        message_route route;
    };

    explicit destination_log(size_t capacity = 1);

    //! A new run: nothing sent, packet 0 next.
    void reset();
    //! \p message of \p packets left by \p route; returns its first packet index.
    uint64_t append(uint64_t message, size_t packets, const message_route& route);
    //! The destination's packets so far.
    uint64_t packets() const { return d_next_packet; }
    //! The message that holds packet \p j, if still held (false: forgotten, or not sent).
    bool find(uint64_t j, entry& out) const;
    //! The newest message appended; false: none.
    bool newest(entry& out) const;
    //! Messages held.
    size_t size() const { return d_count; }

private:
    std::vector<entry> d_ring;
    size_t d_head = 0; // oldest
    size_t d_count = 0;
    uint64_t d_next_packet = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
