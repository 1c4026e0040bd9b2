/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/link_registers.h"
#include "epoch_follower.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {

void epoch_follower::reset(regs::link_schedule& schedule,
                           destination_progress& progress,
                           unsigned destinations,
                           const weights_t& programmed,
                           uint32_t notify_interval)
{
    d_schedule = &schedule;
    d_progress = &progress;
    d_destinations = std::min(destinations, max_destinations);
    d_programmed = programmed;
    d_weights = programmed;
    d_notify_interval = notify_interval;
    d_run_first = 0;
    d_followed = 0;
    d_implausible = 0;
    d_changes = 0;
    d_why.clear();
    d_progress->set_known(0);
}

void epoch_follower::continue_at(uint64_t first, const weights_t& programmed)
{
    d_programmed = programmed;
    d_weights = programmed;
    d_run_first = first;
    d_followed = 0;
    d_changes = 0;
}

bool epoch_follower::follow(const epoch_snapshot& s, uint64_t possible)
{
    d_changes = 0;
    if (!d_schedule || failed())
        return false;
    const unsigned kept = std::min<unsigned>(s.kept, epoch_snapshot::max_kept);
    for (unsigned j = 0; j < kept; j++) {
        const regs::epoch_values& e = s.epochs[j];
        if (e.number < d_followed)
            continue;
        if (e.number > d_followed)
            break; // overwritten before it was read: said below
        if (!follow_epoch(e))
            return false;
    }
    if (d_followed < s.epoch_count) {
        d_why = "the device began epochs " + std::to_string(d_followed) + ".." +
                std::to_string(s.epoch_count - 1) +
                " faster than the host read them (it shows " + std::to_string(kept) +
                "): where their messages went is not known; a device must not begin " +
                "EPOCH_KEPT epochs within one ring (docs/register-map.md)";
        return false;
    }
    if (d_followed == 0)
        return true; // before the device's epoch 0: nothing is known yet
    // A run that continues the stream is at its first message before it starts.
    possible = std::max(possible, d_run_first);
    if (s.known_messages > possible)
        d_implausible++;
    d_progress->set_known(std::min(s.known_messages, possible));
    return true;
}

bool epoch_follower::follow_epoch(const regs::epoch_values& e)
{
    weights_t w{};
    for (unsigned d = 0; d < d_destinations; d++)
        w[d] = e.weights[d];
    const uint64_t known = d_progress->known();
    if (e.number > 0 && e.first < known) {
        d_why = "the device's epoch " + std::to_string(e.number) + " begins at message " +
                std::to_string(e.first) + ", below the " + std::to_string(known) +
                " it said it had scheduled: the device does not keep its schedule";
        return false;
    }
    try {
        // Nothing of the run was judged before the device's epoch 0 was known (known =
        // the run's first message): it may replace the weights the host programmed (a
        // link down at START). It begins where the run does, whatever it says.
        d_schedule->begin_epoch(
            e.number == 0 ? d_run_first : e.first, w, d_notify_interval);
    } catch (const std::invalid_argument& x) {
        d_why =
            "the device's epoch " + std::to_string(e.number) + " is not one: " + x.what();
        return false;
    }
    d_followed = e.number + 1;
    d_weights = w;
    if (e.number == 0) {
        for (unsigned d = 0; d < d_destinations; d++)
            if (d_programmed[d] && !w[d])
                note(change::kind::link_down, e, d, regs::epoch::cause_code::link_down);
        return true;
    }
    note(change::kind::schedule, e, 0, 0);
    namespace cause = regs::epoch::cause_code;
    if ((e.cause == cause::link_down || e.cause == cause::host_down) &&
        e.link < d_destinations)
        note(change::kind::link_down, e, e.link, e.cause);
    else if (e.cause == cause::link_up && e.link < d_destinations)
        note(change::kind::link_up, e, e.link, 0);
    return true;
}

void epoch_follower::note(change::kind what,
                          const regs::epoch_values& e,
                          unsigned link,
                          uint32_t by)
{
    if (d_changes == max_changes)
        return; // more than one snapshot can hold: the counters still say it
    change& c = d_change[d_changes++];
    c.what = what;
    c.epoch = e;
    c.link = link;
    c.by = by;
}

} // namespace rdma
} // namespace gr
