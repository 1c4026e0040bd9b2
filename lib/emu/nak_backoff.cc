/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nak_backoff.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {
namespace emu {

void nak_backoff::apply(const ctrl_loss_counts& losses,
                        const water_filling_result& last,
                        bool have_last,
                        water_filling_input& in)
{
    for (unsigned l = 0; l < ctrl_max_links; l++) {
        bool naked = false;
        double asked = 0; // the demand of the streams that may use the link
        for (unsigned s = 0; s < ctrl_max_streams; s++) {
            const uint64_t now = losses.count[s][l];
            // Only a destination in use counts; a count that went down restarted.
            if ((losses.in_use[s] >> l & 1) && now > d_naks[s][l])
                naked = true;
            d_naks[s][l] = now;
            if (s < in.streams && (in.links_of[s] >> l & 1))
                asked += in.demand[s];
        }
        const double nominal = l < in.links ? in.capacity[l] : ctrl_model::unlimited;
        const double wanted = std::min(nominal, asked);
        const double lowest = asked * floor_share;
        double& e = d_estimate[l];
        if (naked && asked > 0) {
            const double carried = have_last && last.load[l] > 0 ? last.load[l] : wanted;
            e = std::max(lowest, cut * std::min(e, carried));
            d_cuts++;
        } else if (std::isfinite(e)) {
            e *= 1 + regain;
            if (e >= wanted)
                e = ctrl_model::unlimited; // regained: the link's capacity again
        }
        if (l < in.links)
            in.capacity[l] = std::min(in.capacity[l], e);
    }
}

void nak_backoff::observe(const ctrl_loss_counts& losses)
{
    d_naks = losses.count;
    d_estimate = unlimited();
}

bool nak_backoff::recovering() const
{
    for (double e : d_estimate)
        if (std::isfinite(e))
            return true;
    return false;
}

void nak_backoff::reset()
{
    for (auto& row : d_naks)
        row.fill(0);
    d_estimate = unlimited();
    d_cuts = 0;
}

} // namespace emu
} // namespace rdma
} // namespace gr
