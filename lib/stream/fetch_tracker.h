/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_FETCH_TRACKER_H
#define INCLUDED_RDMA_STREAM_FETCH_TRACKER_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Turns the device's SEND WITH IMMEDIATE notifications into "items fetched from the TX
 * ring" (docs/transmit.md): the immediate is the number of messages fetched since
 * START, mod 2^32, and is unwrapped to 64 bits against the last accepted one. Once an
 * item is fetched its slot may be written again.
 *
 * Anyone who knows the QPN and port can send a SEND WITH IMMEDIATE, and a slot freed too
 * early is overwritten before the device read it. So a claim is believed only within
 * what the device can have done: no more than the host committed (rounded up to the
 * message that holds the last committed item: a burst's last message may be short),
 * and no more than the caller's bound from the clock (the sample rate times the time
 * since START plus the longest lead). Others are counted and ignored.
 */
class fetch_tracker
{
public:
    enum class verdict {
        accepted,    //!< fetched moved forward
        stale,       //!< not ahead of what was already fetched (a repeat, a reorder)
        implausible, //!< more than committed, or than the clock allows: ignored
    };

    //! Begin a run: \p items_per_message items per READ message.
    void reset(uint64_t items_per_message);

    /*!
     * A notification with immediate \p imm, taken in when the host has committed
     * \p committed items and the device can have fetched at most \p fetch_bound items
     * (the clock's bound; UINT64_MAX: none).
     */
    verdict on_immediate(uint32_t imm, uint64_t committed, uint64_t fetch_bound);

    //! Items fetched: their slots may be reused.
    uint64_t fetched() const { return d_fetched; }
    //! Messages fetched, unwrapped.
    uint64_t messages() const { return d_messages; }
    uint64_t stale() const { return d_stale; }
    uint64_t implausible() const { return d_implausible; }

private:
    uint64_t d_items_per_message = 1;
    uint64_t d_messages = 0;
    uint64_t d_fetched = 0;
    uint64_t d_stale = 0;
    uint64_t d_implausible = 0;
};

} // namespace rdma
} // namespace gr

#endif
