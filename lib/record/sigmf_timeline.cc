/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sigmf_timeline.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gr {
namespace rdma {

uint64_t sigmf_timeline::segment::time_at(uint64_t k) const
{
    return time_ns + static_cast<uint64_t>(std::llround((k - item) * 1e9 / rate));
}

sigmf_timeline::sigmf_timeline(double rate, size_t max_segments)
    : d_max(std::max<size_t>(1, max_segments))
{
    segment first;
    first.rate = rate;
    d_segments.push_back(first);
}

const sigmf_timeline::segment& sigmf_timeline::at(uint64_t item) const
{
    // The last that starts at or before it (the first always does).
    auto it = std::upper_bound(d_segments.begin(),
                               d_segments.end(),
                               item,
                               [](uint64_t k, const segment& s) { return k < s.item; });
    return it == d_segments.begin() ? d_segments.front() : *std::prev(it);
}

sigmf_timeline::segment* sigmf_timeline::start_at(uint64_t item)
{
    segment& last = d_segments.back();
    if (last.item == item)
        return &last;
    if (d_segments.size() >= d_max) {
        d_dropped++; // counted, not kept: the last kept segment goes on as it was
        return nullptr;
    }
    segment next = last;
    next.item = item;
    if (last.has_time)
        next.time_ns = last.time_at(item);
    // Rare (a retune, a rate change, a skip): the only allocation, one per segment.
    d_segments.push_back(next);
    return &d_segments.back();
}

void sigmf_timeline::on_time(uint64_t item, uint64_t time_ns)
{
    segment& last = d_segments.back();
    if (!last.has_time && last.item == item) {
        last.has_time = true;
        last.time_ns = time_ns;
        return;
    }
    if (last.has_time) {
        const double leap =
            std::max(static_cast<double>(time_leap_ns), 0.5e9 / last.rate);
        const double off =
            static_cast<double>(time_ns) - static_cast<double>(last.time_at(item));
        if (std::fabs(off) <= leap)
            return; // on the timeline: a gap's zeros kept it (re-tagged after a gap)
    }
    if (segment* s = start_at(item)) {
        s->has_time = true;
        s->time_ns = time_ns;
    }
}

void sigmf_timeline::on_rate(uint64_t item, double rate)
{
    if (!(rate > 0) || !std::isfinite(rate) || rate == d_segments.back().rate)
        return;
    // On the item of an rx_time the tagged time stays: only the rate changes.
    if (segment* s = start_at(item))
        s->rate = rate;
}

void sigmf_timeline::on_freq(uint64_t item, double hz)
{
    const segment& last = d_segments.back();
    if (last.has_freq && last.freq == hz)
        return;
    if (segment* s = start_at(item)) {
        s->has_freq = true;
        s->freq = hz;
    }
}

void sigmf_timeline::forget_before(uint64_t item)
{
    while (d_segments.size() > 1 && d_segments[1].item <= item)
        d_segments.pop_front();
}

} // namespace rdma
} // namespace gr
