/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "progress_tracker.h"
#include <algorithm>

namespace gr {
namespace rdma {

void progress_tracker::reset(uint64_t items_per_message,
                             uint64_t total_items,
                             uint64_t notify_interval)
{
    d_items_per_message = items_per_message ? items_per_message : 1;
    d_total = total_items;
    d_notify_interval = notify_interval ? notify_interval : 1;
    d_out_of_sequence = 0;
    d_next_message = 0;
    d_landed = 0;
}

void progress_tracker::on_immediate(uint32_t imm)
{
    // Forward distance from the next expected message, modulo 2^32: anything in the
    // upper half is behind us.
    const uint32_t ahead = imm - static_cast<uint32_t>(d_next_message);
    if (ahead >= 0x80000000u) {
        d_out_of_sequence++;
        return;
    }
    if (!is_notification_point(d_next_message + ahead))
        d_out_of_sequence++;
    d_next_message += uint64_t(ahead) + 1;
    d_landed = d_next_message * d_items_per_message;
    if (d_total)
        d_landed = std::min(d_landed, d_total);
}

bool progress_tracker::is_notification_point(uint64_t message) const
{
    const bool last_of_burst = d_total &&
                               (message + 1) * d_items_per_message >= d_total &&
                               message * d_items_per_message < d_total;
    return last_of_burst || (message + 1) % d_notify_interval == 0;
}

} // namespace rdma
} // namespace gr
