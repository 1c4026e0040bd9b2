/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fetch_tracker.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {

void fetch_tracker::reset(uint64_t items_per_message)
{
    if (items_per_message == 0)
        throw std::invalid_argument("fetch_tracker: 0 items per message");
    d_items_per_message = items_per_message;
    d_messages = 0;
    d_fetched = 0;
    d_stale = 0;
    d_implausible = 0;
}

fetch_tracker::verdict
fetch_tracker::on_immediate(uint32_t imm, uint64_t committed, uint64_t fetch_bound)
{
    // Forward by at most 2^31 messages from the last accepted count; anything else is
    // behind it (or so far ahead that it cannot be believed either way).
    const uint32_t delta = imm - static_cast<uint32_t>(d_messages);
    if (delta == 0 || delta >= (1u << 31)) {
        d_stale++;
        return verdict::stale;
    }
    const uint64_t messages = d_messages + delta;
    const uint64_t committed_messages =
        (committed + d_items_per_message - 1) / d_items_per_message;
    // messages * items_per_message cannot overflow: messages <= committed_messages.
    if (messages > committed_messages ||
        std::min(messages * d_items_per_message, committed) > fetch_bound) {
        d_implausible++;
        return verdict::implausible;
    }
    d_messages = messages;
    d_fetched = std::min(messages * d_items_per_message, committed);
    return verdict::accepted;
}

} // namespace rdma
} // namespace gr
