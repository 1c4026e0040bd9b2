/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "path_delay.h"
#include <algorithm>
#include <cstdlib>

namespace gr {
namespace rdma {

void path_delay::reset()
{
    for (auto& s : d_smoothed)
        s.store(0, std::memory_order_relaxed);
    d_told.fill(0);
    d_told_at.fill(INT64_MIN / 2);
}

void path_delay::on_notification(unsigned d, int64_t delay_ns)
{
    if (d >= max_destinations)
        return;
    const int64_t x = std::clamp<int64_t>(delay_ns, 1, UINT32_MAX);
    const int64_t s = d_smoothed[d].load(std::memory_order_relaxed);
    const int64_t next = s == 0 ? x : std::max<int64_t>(1, s + (x - s) / 8);
    d_smoothed[d].store(uint32_t(next), std::memory_order_relaxed);
}

uint32_t path_delay::measured(unsigned d) const
{
    return d < max_destinations ? d_smoothed[d].load(std::memory_order_relaxed) : 0;
}

bool path_delay::due(unsigned d, int64_t now_ns, uint32_t& ns)
{
    if (d >= max_destinations)
        return false;
    const uint32_t m = measured(d);
    if (m == 0 || now_ns - d_told_at[d] < tell_period_ns)
        return false;
    const int64_t moved = std::llabs(int64_t(m) - int64_t(d_told[d]));
    if (d_told[d] != 0 && moved * tell_change <= int64_t(d_told[d]))
        return false;
    d_told[d] = m;
    d_told_at[d] = now_ns;
    ns = m;
    return true;
}

} // namespace rdma
} // namespace gr
