/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "link_accounting.h"
#include <algorithm>

namespace gr {
namespace rdma {

void link_accounting::reset(const regs::link_schedule& schedule,
                            const std::array<uint8_t, max_destinations>& link_of,
                            uint64_t items_per_message,
                            uint64_t total_items)
{
    d_schedule = &schedule;
    d_link_of = link_of;
    for (uint8_t& n : d_link_of)
        n = std::min<uint8_t>(n, max_links - 1);
    d_items_per_message = std::max<uint64_t>(1, items_per_message);
    d_total = total_items;
    d_final = 0;
    d_links.fill(link_counts{});
    d_unattributed_messages = 0;
    d_unattributed_samples = 0;
}

unsigned link_accounting::link_of(uint64_t m) const
{
    const uint8_t d = d_schedule ? d_schedule->destination_of(m) : 0;
    return d < max_destinations ? d_link_of[d] : max_links;
}

uint32_t link_accounting::links_of(uint64_t first, uint64_t count) const
{
    uint32_t mask = 0;
    if (!count)
        return mask;
    const uint64_t last = (first + count - 1) / d_items_per_message;
    // Every destination of an epoch takes a message within one period of its pattern.
    for (uint64_t m = first / d_items_per_message; m <= last; m++) {
        const unsigned n = link_of(m);
        mask |= n < max_links ? 1u << n : 1u << 31;
        if (m - first / d_items_per_message >= regs::link_schedule::max_period)
            break;
    }
    return mask;
}

void link_accounting::on_final(uint64_t end)
{
    if (d_total)
        end = std::min(end, (d_total + d_items_per_message - 1) / d_items_per_message);
    for (; d_final < end; d_final++) {
        const unsigned n = link_of(d_final);
        if (n < max_links)
            d_links[n].messages++;
        else
            d_unattributed_messages++;
    }
}

void link_accounting::on_unsent(uint64_t end)
{
    if (end <= d_final)
        return;
    d_unattributed_messages += end - d_final;
    d_final = end;
}

void link_accounting::on_lost(uint64_t first, uint64_t count)
{
    // A gap may start or end inside a message (a burst's short last one, a partial
    // hand-out): each message's part goes to its own link.
    const uint64_t end = first + count;
    while (first < end) {
        const uint64_t m = first / d_items_per_message;
        const uint64_t part = std::min(end, (m + 1) * d_items_per_message) - first;
        const unsigned n = link_of(m);
        if (n < max_links)
            d_links[n].lost_samples += part;
        else
            d_unattributed_samples += part;
        first += part;
    }
}

} // namespace rdma
} // namespace gr
