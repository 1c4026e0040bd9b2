/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_EPOCH_FOLLOWER_H
#define INCLUDED_RDMA_STREAM_EPOCH_FOLLOWER_H

#include "../regs/link_schedule.h"
#include "destination_progress.h"
#include "epoch_snapshot.h"
#include <array>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * The host's copy of the device's schedule (docs/links.md, "What the host does"): each
 * epoch the device reports becomes an epoch of the host's link_schedule, in order, and
 * the schedule is known (destination_progress::set_known) as far as the device says,
 * but never further than the device can have scheduled by now. A device whose epochs
 * cannot be followed (one missed, one that begins below what was known, one the
 * schedule refuses) ends the following, with why(): where messages went is then no
 * longer known. Destination d is on link d. No allocation but for why().
 */
class epoch_follower
{
public:
    static constexpr unsigned max_destinations = regs::link_schedule::max_destinations;
    using weights_t = std::array<uint16_t, max_destinations>;

    //! What a snapshot changed, for the stream's reports.
    struct change {
        enum class kind : uint8_t {
            schedule,  //!< an epoch after the first: new weights
            link_down, //!< an epoch took link out (by: 1 device, 2 host)
            link_up,   //!< an epoch gave link back
        };
        kind what = kind::schedule;
        regs::epoch_values epoch;
        unsigned link = 0;
        uint32_t by = 0;
    };
    static constexpr unsigned max_changes =
        3 * epoch_snapshot::max_kept + max_destinations;

    /*!
     * A run over \p schedule and \p progress (both kept by reference), \p destinations
     * destinations programmed with \p programmed weights, epochs at multiples of
     * \p notify_interval. Nothing is known until the first snapshot.
     */
    void reset(regs::link_schedule& schedule,
               destination_progress& progress,
               unsigned destinations,
               const weights_t& programmed,
               uint32_t notify_interval);

    /*!
     * Take \p s, when the device can have scheduled at most \p possible local messages.
     * Returns false once the schedule cannot be followed (and from then on).
     */
    bool follow(const epoch_snapshot& s, uint64_t possible);
    /*!
     * A new run of the stream from local message \p first (its epoch 0 begins there;
     * destination_progress::continue_at() moved the progress), its destinations
     * programmed with \p programmed weights: its epochs are numbered from 0 again.
     */
    void continue_at(uint64_t first, const weights_t& programmed);

    unsigned change_count() const { return d_changes; }
    const change& change_at(unsigned i) const { return d_change.at(i); }
    //! Epochs followed: the next one expected is this number.
    uint32_t followed() const { return d_followed; }
    //! Snapshots that claimed more was scheduled than can have been.
    uint64_t implausible() const { return d_implausible; }
    //! The newest epoch's weights.
    const weights_t& weights() const { return d_weights; }
    bool failed() const { return !d_why.empty(); }
    const std::string& why() const { return d_why; }

private:
    bool follow_epoch(const regs::epoch_values& e);
    void note(change::kind what, const regs::epoch_values& e, unsigned link, uint32_t by);

    regs::link_schedule* d_schedule = nullptr;
    destination_progress* d_progress = nullptr;
    unsigned d_destinations = 0;
    weights_t d_programmed{};
    weights_t d_weights{};
    uint32_t d_notify_interval = 0;
    uint64_t d_run_first = 0; // the run's first local message: its epoch 0's
    uint32_t d_followed = 0;
    uint64_t d_implausible = 0;
    std::array<change, max_changes> d_change{};
    unsigned d_changes = 0;
    std::string d_why;
};

} // namespace rdma
} // namespace gr

#endif
