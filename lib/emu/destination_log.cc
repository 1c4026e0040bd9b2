/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "destination_log.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

destination_log::destination_log(size_t capacity) : d_ring(std::max<size_t>(capacity, 1))
{
}

void destination_log::reset()
{
    d_head = 0;
    d_count = 0;
    d_next_packet = 0;
}

uint64_t
destination_log::append(uint64_t message, size_t packets, const message_route& route)
{
    if (d_count == d_ring.size()) { // the oldest goes
        d_head = (d_head + 1) % d_ring.size();
        d_count--;
    }
    entry& e = d_ring[(d_head + d_count) % d_ring.size()];
    e.first_packet = d_next_packet;
    e.message = message;
    e.packets = packets;
    e.route = route;
    d_count++;
    d_next_packet += packets;
    return e.first_packet;
}

bool destination_log::find(uint64_t j, entry& out) const
{
    if (d_count == 0 || j >= d_next_packet)
        return false;
    // Entries are in packet order: a binary search over the ring.
    size_t lo = 0, hi = d_count;
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (d_ring[(d_head + mid) % d_ring.size()].first_packet <= j)
            lo = mid;
        else
            hi = mid;
    }
    const entry& e = d_ring[(d_head + lo) % d_ring.size()];
    if (j < e.first_packet || j >= e.first_packet + e.packets)
        return false; // older than what is held
    out = e;
    return true;
}

bool destination_log::newest(entry& out) const
{
    if (d_count == 0)
        return false;
    out = d_ring[(d_head + d_count - 1) % d_ring.size()];
    return true;
}

} // namespace emu
} // namespace rdma
} // namespace gr
