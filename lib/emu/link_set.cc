/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/link_registers.h"
#include "link_channel.h"
#include "link_set.h"

namespace gr {
namespace rdma {
namespace emu {

link_set::link_set(std::vector<wire*> wires, std::vector<const link_channel*> channels)
{
    for (size_t n = 0; n < wires.size(); n++) {
        auto l = std::make_unique<link>();
        l->out = wires[n];
        l->channel = n < channels.size() ? channels[n] : nullptr;
        d_links.push_back(std::move(l));
    }
}

bool link_set::up(unsigned n) const
{
    const link& l = *d_links.at(n);
    return !l.channel || !l.channel->down();
}

bool link_set::set_control(unsigned n, uint32_t value)
{
    namespace lc = regs::link_control;
    if (value != lc::up && value != lc::down)
        return false;
    link& l = *d_links.at(n);
    const uint32_t before = l.control.exchange(value);
    if (value == lc::up)
        l.rejoins++;
    else if (before == lc::up)
        l.down_events++;
    d_generation.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

void link_set::note_status(unsigned n)
{
    link& l = *d_links.at(n);
    const bool now_up = up(n);
    if (l.was_up.exchange(now_up) && !now_up)
        l.down_events++;
    d_generation.fetch_add(1, std::memory_order_acq_rel);
}

} // namespace emu
} // namespace rdma
} // namespace gr
