/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "destination_progress.h"

namespace gr {
namespace rdma {

void destination_progress::reset(const regs::link_schedule& schedule,
                                 uint64_t items_per_message,
                                 uint64_t total_items,
                                 uint32_t notify_interval,
                                 uint32_t item_bytes)
{
    d_schedule = &schedule;
    d_items_per_message = items_per_message ? items_per_message : 1;
    d_total = total_items;
    d_notify_interval = notify_interval;
    d_item_bytes = item_bytes;
    d_frontier.fill(0);
    d_out_of_sequence.fill(0);
    d_landed = 0;
    d_known = UINT64_MAX;
    d_unwaited = 0;
    d_settled = 0;
    d_held.fill(held_immediate{});
    d_held_count = 0;
    d_wrong_destination = 0;
    d_wrong_length = 0;
    d_implausible = 0;
}

void destination_progress::set_unwaited(uint32_t mask)
{
    d_unwaited = mask;
    advance_settled();
}

bool destination_progress::settled(uint64_t m) const
{
    if (m < d_settled)
        return true;
    if (!d_schedule || m >= d_known)
        return false;
    const uint8_t d = d_schedule->destination_of(m);
    if (d >= max_destinations) // none: an epoch no longer kept
        return false;
    return ((d_unwaited >> d) & 1) || d_frontier[d] > m;
}

uint64_t destination_progress::items_in(uint64_t m) const
{
    const uint64_t first = m * d_items_per_message;
    if (!d_total)
        return d_items_per_message;
    return first >= d_total ? 0 : std::min(d_items_per_message, d_total - first);
}

destination_progress::verdict destination_progress::on_immediate(unsigned d,
                                                                 uint32_t imm,
                                                                 uint32_t byte_len,
                                                                 uint64_t produced_bound)
{
    if (d >= max_destinations || !d_schedule) {
        d_wrong_destination++;
        return verdict::wrong_destination;
    }
    // Forward distance from the destination's frontier, modulo 2^32: anything in the
    // upper half is behind it.
    const uint32_t ahead = imm - static_cast<uint32_t>(d_frontier[d]);
    if (ahead >= 0x80000000u)
        return verdict::stale;
    const uint64_t message = d_frontier[d] + ahead;
    if (message >= d_known) {
        // Only the destination check needs the schedule: what fails the others is
        // judged now, so that a forged immediate never displaces a genuine held one
        // (and, far ahead, holds every later one back: the frontier frozen).
        if (const verdict v = check_claim(message, byte_len, produced_bound);
            v != verdict::accepted)
            return v;
        held_immediate& h = d_held[d];
        if (!h.present || message > h.message) {
            h = { true, message, byte_len, produced_bound };
            d_held_count++;
        }
        return verdict::held;
    }
    return judge(d, message, byte_len, produced_bound);
}

destination_progress::verdict destination_progress::check_claim(uint64_t message,
                                                                uint32_t byte_len,
                                                                uint64_t produced_bound)
{
    // What a notification claims, judged without the schedule: the WRITE carried its
    // message whole, and the device can have produced that message by now.
    const uint64_t items = items_in(message);
    if (items == 0 || byte_len != items * d_item_bytes) {
        d_wrong_length++;
        return verdict::wrong_length;
    }
    if (message * d_items_per_message + items > produced_bound) {
        d_implausible++;
        return verdict::implausible;
    }
    return verdict::accepted;
}

destination_progress::verdict destination_progress::judge(unsigned d,
                                                          uint64_t message,
                                                          uint32_t byte_len,
                                                          uint64_t produced_bound)
{
    if (d_schedule->destination_of(message) != d) {
        d_wrong_destination++;
        return verdict::wrong_destination;
    }
    if (const verdict v = check_claim(message, byte_len, produced_bound);
        v != verdict::accepted)
        return v;
    const uint64_t end =
        d_total ? (d_total + d_items_per_message - 1) / d_items_per_message : 0;
    if (!d_schedule->carries_immediate(message, d_notify_interval, end))
        d_out_of_sequence[d]++;
    d_frontier[d] = message + 1;
    advance();
    return verdict::accepted;
}

void destination_progress::pass_final(uint64_t messages)
{
    const uint64_t upto = std::min(messages, d_known);
    if (upto <= d_landed)
        return;
    d_landed = upto;
    advance();
}

void destination_progress::set_known(uint64_t messages)
{
    if (messages <= d_known && d_known != UINT64_MAX)
        return;
    d_known = messages;
    for (unsigned d = 0; d < max_destinations; d++) {
        held_immediate& h = d_held[d];
        if (!h.present || h.message >= d_known)
            continue;
        h.present = false;
        if (h.message >= d_frontier[d])
            judge(d, h.message, h.byte_len, h.produced_bound);
    }
    advance();
}

void destination_progress::continue_at(uint64_t first)
{
    d_frontier.fill(first);
    d_landed = first;
    d_settled = first;
    d_known = first;
    d_held.fill(held_immediate{});
}

void destination_progress::advance_settled()
{
    // As advance(), by the notifications and the destinations not waited for only:
    // the clock passes nothing here.
    if (!d_schedule)
        return;
    for (;;) {
        if ((d_total && d_settled * d_items_per_message >= d_total) ||
            d_settled >= d_known)
            return;
        const uint8_t d = d_schedule->destination_of(d_settled);
        if (d >= max_destinations ||
            (d_frontier[d] <= d_settled && !((d_unwaited >> d) & 1)))
            return;
        d_settled++;
    }
}

void destination_progress::advance()
{
    advance_settled();
    // Each message is passed once over the run: the cost is per message, amortized.
    for (;;) {
        if ((d_total && d_landed * d_items_per_message >= d_total) || d_landed >= d_known)
            return;
        const uint8_t d = d_schedule->destination_of(d_landed);
        if (d >= max_destinations || d_frontier[d] <= d_landed)
            return;
        d_landed++;
    }
}

} // namespace rdma
} // namespace gr
