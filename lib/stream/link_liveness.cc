/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "link_liveness.h"
#include <algorithm>

namespace gr {
namespace rdma {

void link_liveness::reset(int64_t timeout_ns,
                          uint32_t notify_interval,
                          int64_t message_ns,
                          int64_t from_ns)
{
    d_timeout_ns = notify_interval ? timeout_ns : 0;
    d_notify_interval = notify_interval;
    d_message_ns = message_ns;
    d_timeout_of.fill(0);
    d_active = 0;
    d_declared = 0;
    d_frontier.fill(0);
    d_moved_ns.fill(from_ns);
    d_progressed_ns.fill(INT64_MIN);
    d_from_ns = from_ns;
}

void link_liveness::on_epoch(const std::array<uint16_t, max_destinations>& weights,
                             int64_t now_ns)
{
    uint32_t active = 0;
    unsigned period = 0;
    for (unsigned d = 0; d < max_destinations; d++) {
        period += weights[d];
        if (weights[d])
            active |= 1u << d;
    }
    for (unsigned d = 0; d < max_destinations; d++) {
        const uint64_t every =
            weights[d] ? std::max<uint64_t>(d_notify_interval,
                                            (period + weights[d] - 1) / weights[d])
                       : 0;
        d_timeout_of[d] =
            d_timeout_ns && weights[d]
                ? std::max<int64_t>(d_timeout_ns, 3 * int64_t(every) * d_message_ns)
                : 0;
    }
    const uint32_t joined = active & ~d_active;
    for (unsigned d = 0; d < max_destinations; d++)
        if (joined & (1u << d))
            d_moved_ns[d] = std::max(now_ns, d_from_ns);
    d_declared &= ~joined;
    d_active = active;
}

uint32_t link_liveness::quiet(int64_t now_ns, int64_t quiet_ns) const
{
    uint32_t silent = 0;
    bool others_moved = false;
    for (unsigned d = 0; d < max_destinations; d++) {
        if (!(d_active & (1u << d)))
            continue;
        if (now_ns - d_moved_ns[d] > quiet_ns)
            silent |= 1u << d;
        else
            others_moved = true;
    }
    return others_moved ? silent : 0; // all silent: the device or the reader paused
}

uint32_t link_liveness::check(const std::array<uint64_t, max_destinations>& frontier,
                              int64_t now_ns)
{
    for (unsigned d = 0; d < max_destinations; d++) {
        if (frontier[d] != d_frontier[d]) {
            d_frontier[d] = frontier[d];
            d_moved_ns[d] = d_progressed_ns[d] = std::max(now_ns, d_from_ns);
        }
    }
    if (!d_timeout_ns)
        return 0;
    // Silent for its timeout while another active destination progressed well into
    // that silence (half its timeout after it began): a link, not the stream. A shared
    // silence (the device or the reader paused, one destination's forged packets
    // holding the hand-out back) declares nobody, whichever destination happened to
    // deliver last; and a join is no progress, so a destination that rejoined is no
    // evidence against the others before it delivers.
    uint32_t declare = 0;
    for (unsigned d = 0; d < max_destinations; d++) {
        if (!(d_active & (1u << d)) || (d_declared & (1u << d)) ||
            now_ns - d_moved_ns[d] <= d_timeout_of[d])
            continue;
        const int64_t evidence = d_moved_ns[d] + d_timeout_of[d] / 2;
        for (unsigned e = 0; e < max_destinations; e++)
            if (e != d && (d_active & (1u << e)) && d_progressed_ns[e] > evidence) {
                declare |= 1u << d;
                break;
            }
    }
    d_declared |= declare;
    return declare;
}

} // namespace rdma
} // namespace gr
