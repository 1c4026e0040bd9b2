/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "link_schedule.h"
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace regs {

link_schedule::link_schedule(unsigned shares, uint64_t block)
    : d_shares(shares), d_block(block)
{
    if (shares < 1 || shares > max_destinations)
        throw std::invalid_argument("link_schedule: " + std::to_string(shares) +
                                    " shares; use 1.." +
                                    std::to_string(max_destinations));
    if (block < 1)
        throw std::invalid_argument("link_schedule: a share block of 0 messages; use 1 "
                                    "or more");
}

unsigned link_schedule::share_of(uint64_t m) const
{
    return static_cast<unsigned>((m / d_block) % d_shares);
}

uint64_t link_schedule::local_index(uint64_t m) const
{
    return m / (d_block * d_shares) * d_block + m % d_block;
}

uint64_t link_schedule::stream_message(unsigned h, uint64_t i) const
{
    return i / d_block * d_block * d_shares + uint64_t(h) * d_block + i % d_block;
}

uint64_t link_schedule::local_count(unsigned h, uint64_t n) const
{
    const uint64_t cycle = d_block * d_shares;
    const uint64_t rest = n % cycle, before = uint64_t(h) * d_block;
    return n / cycle * d_block + (rest > before ? std::min(d_block, rest - before) : 0);
}

void link_schedule::begin_epoch(uint64_t first,
                                const std::array<uint16_t, max_destinations>& weights,
                                uint32_t notify_interval)
{
    if (d_epochs > 0 && first < epoch_first())
        throw std::invalid_argument(
            "link_schedule: an epoch from message " + std::to_string(first) +
            " starts before the current one (" + std::to_string(epoch_first()) +
            "); epochs only move forward");
    if (notify_interval > 0 && first % notify_interval != 0)
        throw std::invalid_argument(
            "link_schedule: an epoch from message " + std::to_string(first) +
            " starts inside a notification window of " + std::to_string(notify_interval) +
            " messages; start it at a multiple of the interval");
    unsigned total = 0;
    for (uint16_t w : weights)
        total += w;
    if (total > max_period)
        throw std::invalid_argument("link_schedule: the weights add up to " +
                                    std::to_string(total) + "; at most " +
                                    std::to_string(max_period) +
                                    " (divide them by a common factor)");
    // An epoch from the same first message replaces the newest (nothing was sent in it).
    if (d_epochs == 0 || first > epoch_first())
        d_epochs++;
    epoch& e = d_ring[(d_epochs - 1) % max_epochs];
    e.first = first;
    e.weights = weights;
    e.period = total;

    // Smooth weighted round-robin: every step adds each weight to its credit, the
    // largest credit wins (ties: the lower index) and gives back the sum. Its period
    // is the sum of the weights, and each destination wins exactly its weight per period.
    std::array<int32_t, max_destinations> credit{};
    for (unsigned step = 0; step < total; step++) {
        unsigned best = max_destinations;
        for (unsigned d = 0; d < max_destinations; d++) {
            if (weights[d] == 0)
                continue;
            credit[d] += weights[d];
            if (best == max_destinations || credit[d] > credit[best])
                best = d;
        }
        credit[best] -= static_cast<int32_t>(total);
        e.pattern[step] = static_cast<uint8_t>(best);
    }

    // For each position, the steps to the next one of the same destination (cyclic):
    // scanned backwards over two periods, so that the last occurrences wrap around.
    std::array<unsigned, max_destinations> next{};
    next.fill(std::numeric_limits<unsigned>::max());
    for (unsigned q = 2 * total; q-- > 0;) {
        const unsigned p = q % total;
        const uint8_t d = e.pattern[p];
        if (q < total)
            e.next_same[p] = static_cast<uint16_t>(next[d] - q);
        next[d] = q;
    }
}

uint64_t link_schedule::epoch_first() const { return d_epochs ? newest().first : 0; }

unsigned link_schedule::weight_of(unsigned d) const
{
    return d_epochs && d < max_destinations ? newest().weights[d] : 0;
}

unsigned link_schedule::period() const { return d_epochs ? newest().period : 0; }

const link_schedule::epoch* link_schedule::epoch_of(uint64_t i) const
{
    const uint64_t kept = std::min<uint64_t>(d_epochs, max_epochs);
    for (uint64_t k = 0; k < kept; k++) {
        const epoch& e = d_ring[(d_epochs - 1 - k) % max_epochs];
        if (e.first <= i)
            return &e;
    }
    return nullptr;
}

uint8_t link_schedule::destination_of(uint64_t i) const
{
    const epoch* e = epoch_of(i);
    if (!e || e->period == 0)
        return none;
    return e->pattern[(i - e->first) % e->period];
}

bool link_schedule::carries_immediate(uint64_t i,
                                      uint32_t notify_interval,
                                      uint64_t end) const
{
    const epoch* e = epoch_of(i);
    if (!e || e->period == 0 || (end > 0 && i >= end))
        return false;
    // Epochs begin at window boundaries, so i's window lies wholly in its epoch.
    const uint64_t next = i + e->next_same[(i - e->first) % e->period];
    if (notify_interval > 0 && next >= (i / notify_interval + 1) * notify_interval)
        return true;
    return end > 0 && next >= end;
}

} // namespace regs
} // namespace rdma
} // namespace gr
