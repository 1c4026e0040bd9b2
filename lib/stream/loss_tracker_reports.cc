/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the loss tracker tells: its reports, merged while consecutive ones match, and
// each run of gap samples to the observer that attributes it (several links).

#include "loss_tracker.h"

namespace gr {
namespace rdma {

void loss_tracker::report_run(rx_event::kind type,
                              rx_event::reason cause,
                              uint64_t item,
                              uint64_t device_item,
                              uint64_t count)
{
    // Gap samples are lost on the way: a stream over several links names the link.
    if (type == rx_event::kind::gap && count && d_gap_observer)
        d_gap_observer->on_gap(device_item, count);
    // Consecutive reports of the same kind and cause merge into one event.
    if (d_open_valid && d_open.type == type && d_open.cause == cause && count &&
        d_open.item + d_open.count == item &&
        d_open.device_item + d_open.count == device_item) {
        d_open.count += count;
        return;
    }
    if (d_open_valid)
        report(d_open);
    rx_event e;
    e.type = type;
    e.cause = cause;
    e.item = item;
    e.device_item = device_item;
    e.count = count;
    if (count == 0) { // time marks are not merged
        d_open_valid = false;
        // A later mark for the same item replaces one not yet taken (a skip extended
        // before anything was handed out, its overrun report in between): one item has
        // one time.
        for (size_t age = 0; age < 2; age++) {
            rx_event* queued = d_events.newest(age);
            if (queued && queued->type == rx_event::kind::time && queued->item == item) {
                *queued = e;
                return;
            }
        }
        report(e);
        return;
    }
    d_open = e;
    d_open_valid = true;
}

void loss_tracker::report(const rx_event& e) { d_events.push(e); }

bool loss_tracker::poll_event(rx_event& out)
{
    if (d_open_valid) {
        report(d_open);
        d_open_valid = false;
    }
    return d_events.pop(out);
}

} // namespace rdma
} // namespace gr
