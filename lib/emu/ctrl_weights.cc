/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ctrl_weights.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {
namespace emu {

ctrl_link_weights ctrl_weights::from_parts(const ctrl_link_parts& part)
{
    ctrl_link_weights w{};
    double sum = 0;
    for (double p : part)
        sum += std::isfinite(p) && p > 0 ? p : 0;
    if (!(sum > 0))
        return w;
    std::array<double, ctrl_max_links> rest{};
    unsigned given = 0;
    for (unsigned l = 0; l < ctrl_max_links; l++) {
        const double p = std::isfinite(part[l]) && part[l] > 0 ? part[l] : 0;
        const double exact = p / sum * total;
        w[l] = uint16_t(std::floor(exact));
        rest[l] = p > 0 ? exact - w[l] : -1; // a zero part never gets a unit
        given += w[l];
    }
    while (given < total) {
        unsigned best = 0;
        for (unsigned l = 1; l < ctrl_max_links; l++)
            if (rest[l] > rest[best])
                best = l;
        w[best]++;
        rest[best] = -1;
        given++;
    }
    return w;
}

ctrl_link_parts ctrl_weights::by_rtt(const std::array<uint64_t, ctrl_max_links>& rtt_ns,
                                     uint32_t usable)
{
    ctrl_link_parts part{};
    uint64_t slowest = 0;
    for (unsigned l = 0; l < ctrl_max_links; l++)
        if (usable >> l & 1)
            slowest = std::max(slowest, rtt_ns[l]);
    for (unsigned l = 0; l < ctrl_max_links; l++) {
        if (!(usable >> l & 1))
            continue;
        const uint64_t rtt = rtt_ns[l] ? rtt_ns[l] : slowest;
        part[l] = rtt ? 1.0 / double(rtt) : 1.0;
    }
    return part;
}

} // namespace emu
} // namespace rdma
} // namespace gr
