/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "share_counters.h"

namespace gr {
namespace rdma {
namespace emu {

void share_counters::reset(unsigned shares, uint64_t block)
{
    d_layout = regs::link_schedule(shares, block);
    for (std::atomic<uint64_t>& c : d_count)
        c.store(0, std::memory_order_relaxed);
}

void share_counters::add_range(uint64_t first, uint64_t end, uint64_t spm)
{
    const uint64_t start = first * spm;
    if (end <= start || spm == 0)
        return;
    // Closed form: a device far behind may stop with many messages unsent.
    const uint64_t whole = end / spm;
    for (unsigned h = 0; h < d_layout.shares(); h++) {
        const uint64_t messages =
            d_layout.local_count(h, whole) - d_layout.local_count(h, first);
        d_count[h].fetch_add(messages * spm, std::memory_order_relaxed);
    }
    if (end % spm)
        add(whole, end % spm);
}

} // namespace emu
} // namespace rdma
} // namespace gr
