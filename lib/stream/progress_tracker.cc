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
                             uint64_t notify_interval,
                             uint32_t item_bytes)
{
    d_items_per_message = items_per_message ? items_per_message : 1;
    d_total = total_items;
    d_notify_interval = notify_interval ? notify_interval : 1;
    d_item_bytes = item_bytes;
    d_out_of_sequence = 0;
    d_wrong_length = 0;
    d_implausible = 0;
    d_base = 0;
    d_next_message = 0;
    d_landed = 0;
}

void progress_tracker::rebase(uint64_t message)
{
    d_base = message;
    d_next_message = std::max(d_next_message, message);
    d_landed = std::max(d_landed, message * d_items_per_message);
}

uint64_t progress_tracker::items_in(uint64_t m) const
{
    const uint64_t first = m * d_items_per_message;
    if (!d_total)
        return d_items_per_message;
    return first >= d_total ? 0 : std::min(d_items_per_message, d_total - first);
}

progress_tracker::verdict
progress_tracker::on_immediate(uint32_t imm, uint32_t byte_len, uint64_t produced_bound)
{
    // Forward distance from the next expected message, modulo 2^32: anything in the
    // upper half is behind us.
    const uint32_t ahead = imm - static_cast<uint32_t>(d_next_message - d_base);
    if (ahead >= 0x80000000u) {
        d_out_of_sequence++;
        return verdict::stale;
    }
    const uint64_t message = d_next_message + ahead;
    const uint64_t items = items_in(message);
    if (items == 0 || byte_len != items * d_item_bytes) {
        d_wrong_length++;
        return verdict::wrong_length;
    }
    const uint64_t end = message * d_items_per_message + items;
    if (end > produced_bound) {
        d_implausible++;
        return verdict::implausible;
    }
    if (!is_notification_point(message))
        d_out_of_sequence++;
    d_next_message = message + 1;
    d_landed = end;
    return verdict::accepted;
}

void progress_tracker::advance_to(uint64_t messages)
{
    if (messages <= d_next_message)
        return;
    d_next_message = messages;
    const uint64_t end = messages * d_items_per_message;
    d_landed = d_total ? std::min(end, d_total) : end;
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
