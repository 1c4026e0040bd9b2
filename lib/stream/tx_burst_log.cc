/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_burst_log.h"

namespace gr {
namespace rdma {

void tx_burst_log::reset()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_head = d_count = 0;
    d_published.store(0, std::memory_order_relaxed);
}

void tx_burst_log::started(uint64_t first, uint64_t requested_ns, uint64_t pushed_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_count == capacity) { // the oldest goes: its records came long ago
        d_head = (d_head + 1) % capacity;
        d_count--;
    }
    tx_logged_burst& b = d_bursts[(d_head + d_count) % capacity];
    b = tx_logged_burst{};
    b.first = first;
    b.requested_ns = requested_ns;
    b.pushed_ns = pushed_ns;
    d_count++;
}

void tx_burst_log::ended(uint64_t end)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_count)
        d_bursts[(d_head + d_count - 1) % capacity].end = end;
}

tx_burst_log::pending
tx_burst_log::will_start(uint64_t first, uint64_t requested_ns, uint64_t pushed_ns)
{
    started(first, requested_ns, pushed_ns);
    return pending(*this, true);
}

tx_burst_log::pending tx_burst_log::will_end(uint64_t end)
{
    ended(end);
    return pending(*this, false);
}

void tx_burst_log::withdraw(bool start)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_count)
        return;
    if (start)
        d_count--; // (an oldest burst it pushed out at capacity stays out: long done)
    else
        d_bursts[(d_head + d_count - 1) % capacity].end = tx_logged_burst::open;
}

size_t tx_burst_log::search(uint64_t item) const
{
    // Bursts are consecutive segments of the items, pushed in order: sorted by first.
    size_t lo = 0, hi = d_count; // the answer is in [lo - 1, hi)
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (at(mid).first <= item)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? capacity : lo - 1;
}

bool tx_burst_log::find(uint64_t first, tx_logged_burst& out) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    const size_t i = search(first);
    if (i == capacity || at(i).first != first)
        return false;
    out = at(i);
    return true;
}

bool tx_burst_log::ends_at(uint64_t end) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    // The burst that ends at `end` begins below it: the newest one that does.
    const size_t i = end ? search(end - 1) : capacity;
    return i != capacity && at(i).end == end;
}

} // namespace rdma
} // namespace gr
