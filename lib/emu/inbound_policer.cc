/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inbound_policer.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

void inbound_policer::configure(uint64_t bytes_per_s, int64_t queue_ns)
{
    d_rate = bytes_per_s;
    d_queue_ns = std::max<int64_t>(queue_ns, 0);
}

bool inbound_policer::admit(int64_t now_ns, uint64_t ipv4_bytes)
{
    if (d_rate == 0)
        return true;
    const int64_t depart = std::max(now_ns, d_free_ns);
    if (depart - now_ns > d_queue_ns)
        return false; // the queue is full: the switch drops it
    d_free_ns = depart + static_cast<int64_t>(ipv4_bytes * 1000000000ull / d_rate);
    return true;
}

} // namespace emu
} // namespace rdma
} // namespace gr
