/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PROGRESS_TRACKER_H
#define INCLUDED_RDMA_STREAM_PROGRESS_TRACKER_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Turns immediate-data completions into "items landed in the ring". The device sends
 * WRITE WITH IMMEDIATE with the message sequence number (its low 32 bits) every N-th
 * message and at the end of a burst; message m carries items [m*ipm, (m+1)*ipm).
 * Messages of one link are placed in order, so when message m has landed, so have all
 * before it. Sequence numbers are unwrapped to 64 bits; an immediate that would move
 * backwards (a stale completion) is ignored.
 */
class progress_tracker
{
public:
    //! Begin a run: \p items_per_message items per WRITE message, \p total_items items
    //! in a finite burst (0: continuous), an immediate every \p notify_interval messages.
    void
    reset(uint64_t items_per_message, uint64_t total_items, uint64_t notify_interval = 1);

    void on_immediate(uint32_t imm);
    //! Immediates that were not the device's next notification point: stale, repeated,
    //! or for a message that carries none.
    uint64_t out_of_sequence() const { return d_out_of_sequence; }

    uint64_t landed() const { return d_landed; }
    //! A finite burst has landed completely.
    bool complete() const { return d_total != 0 && d_landed == d_total; }

private:
    bool is_notification_point(uint64_t message) const;

    uint64_t d_items_per_message = 1;
    uint64_t d_total = 0;
    uint64_t d_notify_interval = 1;
    uint64_t d_out_of_sequence = 0;
    uint64_t d_next_message = 0; // messages landed so far
    uint64_t d_landed = 0;
};

} // namespace rdma
} // namespace gr

#endif
