/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_SIGMF_TIMELINE_H
#define INCLUDED_RDMA_RECORD_SIGMF_TIMELINE_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace gr {
namespace rdma {

/*!
 * \brief The captures of a recording: where the meaning of the items changes
 * (docs/recording.md, "captures").
 *
 * A segment starts at an item of the run (its index among the items handed out) and
 * holds its device time (when known), sample rate and centre frequency (when known).
 * The stream's tags make them: rx_time off the current segment's timeline (by more
 * than 1 us or half a sample: an overrun skipped samples, a re-armed run; an rx_time on
 * the timeline, as after a gap, is none), rx_rate with another rate, rx_freq with
 * another frequency. Several on one item make one segment. Tags must come in item
 * order. At most max_segments are kept: beyond that a new one is counted (dropped()),
 * not kept, so memory stays bounded whatever the stream does.
 */
class RDMA_TRANSPORT_API sigmf_timeline
{
public:
    static constexpr uint64_t time_leap_ns = 1000;

    struct segment {
        uint64_t item = 0;
        bool has_time = false;
        uint64_t time_ns = 0;
        double rate = 0;
        bool has_freq = false;
        double freq = 0;

        //! The device time of \p item (>= this->item) on this segment's timeline.
        uint64_t time_at(uint64_t item) const;
    };

    sigmf_timeline(double rate, size_t max_segments);

    void on_time(uint64_t item, uint64_t time_ns);
    void on_rate(uint64_t item, double rate);
    void on_freq(uint64_t item, double hz);

    //! In item order; the first starts at or before every item still recorded.
    const std::deque<segment>& segments() const { return d_segments; }
    //! The segment in effect at \p item.
    const segment& at(uint64_t item) const;
    //! Forget the segments that end at or before \p item: a file that starts there
    //! needs only the one in effect at it and those after.
    void forget_before(uint64_t item);
    uint64_t dropped() const { return d_dropped; }

private:
    // The segment from \p item on: a new one, from what holds at it, or the last one
    // when it starts there (several tags on one item); null when one more is too many.
    segment* start_at(uint64_t item);

    std::deque<segment> d_segments;
    const size_t d_max;
    uint64_t d_dropped = 0;
};

} // namespace rdma
} // namespace gr

#endif
