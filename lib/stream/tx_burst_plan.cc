/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_burst_plan.h"
#include <stdexcept>

namespace gr {
namespace rdma {

void tx_burst_plan::reset()
{
    d_head = d_count = 0;
    d_pending = d_open = false;
    d_pending_item = d_pending_time = d_open_first = 0;
    d_device = device_view{};
    d_last_end = 0;
}

void tx_burst_plan::run_started(uint64_t t0_ns, rational rate)
{
    d_rate = rate;
    d_device.anchor_ns = t0_ns;
}

void tx_burst_plan::queue(const tx_burst_entry& e)
{
    if (d_count == capacity) // the caller checks has_room()
        throw std::logic_error("tx_burst_plan: more entries than it holds");
    d_queue[(d_head + d_count) % capacity] = e;
    d_count++;
}

void tx_burst_plan::begin(uint64_t at, uint64_t time_ns)
{
    if (d_open && at > d_open_first) {
        queue({ false, at, 0 }); // a time inside a burst: END(k) + START(k, T)
        d_open = false;
    }
    d_pending = true; // (a begun burst without items takes the new time)
    d_pending_item = at;
    d_pending_time = time_ns;
}

void tx_burst_plan::end(uint64_t at)
{
    if (d_pending) {
        d_pending = false; // begun, never given an item: nothing to play
        return;
    }
    if (d_open && at > d_open_first) {
        queue({ false, at, 0 });
        d_open = false;
    }
}

void tx_burst_plan::committing(uint64_t at)
{
    if (d_open)
        return;
    const uint64_t time = d_pending && d_pending_item == at ? d_pending_time : 0;
    queue({ true, at, time });
    d_pending = false;
    d_open = true;
    d_open_first = at;
}

uint64_t tx_burst_plan::earliest_ns() const
{
    // The register map's rule: the end of the burst before, as far as the entries tell
    // (from the last timed START; the run's start first), rounded up to the ns.
    using u128 = unsigned __int128;
    const u128 ns = u128(d_device.offset) * d_rate.den * 1000000000u;
    return d_device.anchor_ns + static_cast<uint64_t>((ns + d_rate.num - 1) / d_rate.num);
}

tx_burst_plan::decision tx_burst_plan::resolve(uint64_t device_now_ns,
                                               uint64_t margin_ns) const
{
    decision d;
    const tx_burst_entry* e = front();
    if (!e || !e->start || e->time_ns == 0) {
        d.time_ns = 0;
        return d;
    }
    const uint64_t earliest = earliest_ns();
    if (e->time_ns >= earliest) {
        d.time_ns = e->time_ns; // whether it is late is the device's to find
        return d;
    }
    d.late = true;
    d.time_ns = earliest;
    d.not_before_ns = earliest + margin_ns;
    d.now = device_now_ns >= d.not_before_ns;
    return d;
}

void tx_burst_plan::pushed(uint64_t time_ns)
{
    const tx_burst_entry e = d_queue[d_head];
    d_head = (d_head + 1) % capacity;
    d_count--;
    if (e.start) {
        d_device.open = true;
        d_device.item = e.item;
        if (time_ns) {
            d_device.anchor_ns = time_ns;
            d_device.offset = 0;
        }
        return;
    }
    d_device.open = false;
    d_device.offset += e.item - d_device.item;
    d_device.item = e.item;
    d_last_end = e.item;
}

uint64_t tx_burst_plan::publish_limit(uint64_t committed) const
{
    for (size_t i = 0; i < d_count; i++) {
        const tx_burst_entry& e = d_queue[(d_head + i) % capacity];
        if (!e.start)
            return e.item < committed ? e.item : committed;
    }
    return committed;
}

} // namespace rdma
} // namespace gr
