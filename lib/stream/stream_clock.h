/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_CLOCK_H
#define INCLUDED_RDMA_STREAM_STREAM_CLOCK_H

#include "../util/host_time.h"
#include "../util/rational_rate.h"
#include "share_layout.h"
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Where the device is in the sample stream, from the host's clock: sample k is taken
 * at device time t0 + k / rate, and device time = host time + offset (estimated, with
 * an error bound). The host uses it to know which samples must have landed by now
 * (clock mode, and the end of a burst) and which the device cannot have written yet
 * (before re-arming a slot).
 *
 * A stream whose rate changes runs as consecutive runs of the device (docs/radio.md,
 * RX_FIRST_MESSAGE): its timeline is piecewise, each segment a run that takes sample
 * `first` at `t0` and the next at 1/rate later, until the next segment's first sample;
 * between the end of one run and the start of the next nothing is produced. The last
 * max_segments are kept (events of older samples are long out).
 *
 * A host that takes one share of a stream split over several hosts (share_layout)
 * counts its own samples only: with_share() makes every sample count and index here
 * one of that share's local samples, while the timeline stays the stream's.
 */
class stream_clock
{
public:
    static constexpr size_t max_segments = 8;

    stream_clock() = default;
    stream_clock(rational rate,
                 uint64_t t0_ns,
                 int64_t offset_ns,
                 uint64_t error_ns,
                 uint64_t grace_ns);

    //! From sample \p first on, a run at \p rate takes sample \p first at \p t0_ns
    //! (after the previous run produced exactly the samples below \p first).
    void continue_at(uint64_t first, uint64_t t0_ns, rational rate);
    //! The same timeline with another estimate of the device clock.
    stream_clock with_estimate(int64_t offset_ns, uint64_t error_ns) const;
    //! The same timeline, counted in the local samples of one share of the stream.
    stream_clock with_share(const share_layout& share) const;

    //! Samples produced by device time \p device_ns.
    uint64_t samples_at(int64_t device_ns) const;
    //! Device time of sample \p k, ns since the epoch.
    uint64_t time_of(uint64_t k) const;
    //! Host time (host_time_ns()'s clock) at which the device took sample \p k.
    int64_t host_time_of(uint64_t k) const
    {
        return static_cast<int64_t>(time_of(k)) - d_offset;
    }
    //! The first sample taken at or after device time \p device_ns (exactly).
    uint64_t first_sample_from(uint64_t device_ns) const;
    //! Samples that must have landed by host time \p host_ns (produced a grace period
    //! ago).
    uint64_t final_by(int64_t host_ns) const;
    //! Samples the device may have produced by host time \p host_ns (upper bound).
    uint64_t written_bound(int64_t host_ns) const;
    //! Host time at which sample count \p k becomes final by the clock.
    int64_t host_time_final(uint64_t k) const;

    int64_t offset_ns() const { return d_offset; }
    uint64_t error_ns() const { return d_error; }
    uint64_t grace_ns() const { return d_grace; }
    //! The rate of the last segment (the run producing now, or next).
    rational rate() const { return d_segments[d_count - 1].rate; }

private:
    struct segment {
        uint64_t first = 0; // its first sample
        uint64_t t0 = 0;    // when it takes it
        rational rate{ 1, 1 };
        uint64_t samples_at(uint64_t device_ns) const; // of this run, from first
        uint64_t time_of(uint64_t k) const;            // k >= first
        uint64_t first_from(uint64_t device_ns) const; // >= first
    };
    //! The segment sample \p k belongs to.
    const segment& segment_of(uint64_t k) const;
    // The stream's samples (the public functions convert to the share's).
    uint64_t stream_samples_at(int64_t device_ns) const;
    uint64_t stream_first_from(uint64_t device_ns) const;

    share_layout d_share;

    std::array<segment, max_segments> d_segments{};
    size_t d_count = 1;
    int64_t d_offset = 0;
    uint64_t d_error = 0;
    uint64_t d_grace = 0;
};

} // namespace rdma
} // namespace gr

#endif
