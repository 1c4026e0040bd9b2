/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tune_tracker.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {

tune_tracker::tune_tracker(radio_control& radio, unsigned chan)
    : d_radio(radio), d_chan(chan), d_inbox(std::make_shared<inbox>())
{
    // The listener holds the inbox, not this object: a retune made on another thread
    // while this stream goes away finds the inbox still there.
    std::shared_ptr<inbox> box = d_inbox;
    d_subscription = radio.subscribe(chan, [box](const rf_change& c) {
        if (c.setting != rf_change::what::freq)
            return;
        std::lock_guard<std::mutex> lock(box->mutex);
        if (box->changes.size() < max_pending)
            box->changes.push_back(c);
        else
            box->dropped++;
        box->pending.store(true, std::memory_order_release);
    });
    d_pending.reserve(max_pending);
}

void tune_tracker::start()
{
    {
        std::lock_guard<std::mutex> lock(d_inbox->mutex);
        d_inbox->changes.clear();
    }
    d_pending.clear();
    rf_change now = d_radio.current(d_chan, rf_change::what::freq);
    now.time_ns = 0; // in effect at sample 0, whenever it was set
    d_pending.push_back(now);
}

bool tune_tracker::poll(uint64_t handed_out,
                        uint64_t offset,
                        const stream_clock& clock,
                        rx_event& out)
{
    if (d_inbox->pending.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> lock(d_inbox->mutex);
        for (const rf_change& c : d_inbox->changes)
            if (d_pending.size() < max_pending)
                d_pending.push_back(c);
            else
                d_inbox->dropped++;
        d_inbox->changes.clear();
        d_inbox->pending.store(false, std::memory_order_relaxed);
    }
    if (d_pending.empty())
        return false;
    // The earliest due change first (timed commands may be made out of time order).
    auto due = d_pending.end();
    for (auto it = d_pending.begin(); it != d_pending.end(); ++it) {
        const uint64_t k = clock.first_sample_from(it->time_ns);
        const uint64_t item = k > offset ? k - offset : 0;
        if (item < handed_out && (due == d_pending.end() || it->time_ns < due->time_ns))
            due = it;
    }
    if (due == d_pending.end())
        return false;
    const uint64_t k = clock.first_sample_from(due->time_ns);
    out = rx_event{};
    out.type = rx_event::kind::tune;
    out.device_item = std::max(k, offset);
    out.item = out.device_item - offset;
    out.value = static_cast<uint64_t>(std::llround(due->value * 1e3));
    d_pending.erase(due);
    return true;
}

uint64_t tune_tracker::dropped() const
{
    std::lock_guard<std::mutex> lock(d_inbox->mutex);
    return d_inbox->dropped;
}

} // namespace rdma
} // namespace gr
