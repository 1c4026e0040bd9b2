/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ctrl_model.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

void ctrl_model::apply(const ctrl_record& r)
{
    if (r.has(ctrl_kind::reread)) { // a TX stream's queue holds nothing else
        if (r.stream < ctrl_max_tx_streams)
            d_tx_rereads[r.stream] = r.get(ctrl_kind::reread);
        return;
    }
    if (r.stream >= ctrl_max_streams || r.link >= ctrl_max_links)
        return;
    ctrl_stream_state& s = d_streams[r.stream];
    ctrl_destination_state& d = s.dst[r.link];
    if (r.has(ctrl_kind::nak))
        d.naks = r.get(ctrl_kind::nak);
    if (r.has(ctrl_kind::rtt))
        d.rtt_ns = r.get(ctrl_kind::rtt);
    if (r.has(ctrl_kind::link))
        d.up = r.get(ctrl_kind::link) != 0;
    if (r.has(ctrl_kind::host))
        s.host_limit = r.get(ctrl_kind::host);
    if (r.has(ctrl_kind::weight))
        d.weight = r.get(ctrl_kind::weight);
    if (r.has(ctrl_kind::demand))
        s.demand = r.get(ctrl_kind::demand);
}

void ctrl_model::set_links(unsigned stream, uint32_t mask)
{
    if (stream < ctrl_max_streams)
        d_streams[stream].links = mask & ((1u << ctrl_max_links) - 1);
}

void ctrl_model::set_capacity(unsigned link, double bytes_per_s)
{
    if (link < ctrl_max_links)
        d_capacity[link] = bytes_per_s > 0 ? bytes_per_s : 0;
}

double ctrl_model::demand(unsigned s) const
{
    const ctrl_stream_state& st = d_streams[s];
    if (st.host_limit == 0)
        return double(st.demand);
    return double(std::min(st.demand, st.host_limit));
}

uint32_t ctrl_model::usable(unsigned s) const
{
    uint32_t m = 0;
    for (unsigned l = 0; l < ctrl_max_links; l++)
        if ((d_streams[s].links >> l & 1) && d_streams[s].dst[l].up)
            m |= 1u << l;
    return m;
}

water_filling_input ctrl_model::filling_input() const
{
    // Only up to the last stream and link in use: the filling's cost grows with both.
    water_filling_input in;
    uint32_t used = 0;
    for (unsigned s = 0; s < ctrl_max_streams; s++) {
        if (d_streams[s].links == 0)
            continue;
        in.streams = s + 1;
        used |= d_streams[s].links;
        in.demand[s] = demand(s);
        in.links_of[s] = uint8_t(usable(s));
    }
    in.links = used ? 32 - unsigned(__builtin_clz(used)) : 0;
    in.capacity = d_capacity;
    return in;
}

void ctrl_model::set_tx(unsigned t, const ctrl_tx_state& state)
{
    if (t < ctrl_max_tx_streams)
        d_tx[t] = state.link < ctrl_max_links ? state : ctrl_tx_state();
}

double ctrl_model::tx_demand(unsigned t) const
{
    const ctrl_tx_state& st = d_tx[t];
    if (st.host_limit == 0)
        return double(st.demand);
    return double(std::min(st.demand, st.host_limit));
}

water_filling_input ctrl_model::tx_filling_input() const
{
    water_filling_input in;
    unsigned links = 0;
    for (unsigned t = 0; t < ctrl_max_tx_streams; t++) {
        if (d_tx[t].link == ctrl_tx_state::no_tx_link)
            continue;
        in.streams = t + 1;
        links = std::max(links, unsigned(d_tx[t].link) + 1);
        in.demand[t] = tx_demand(t);
        in.links_of[t] = uint8_t(1u << d_tx[t].link);
    }
    in.links = links;
    in.capacity = d_capacity;
    return in;
}

ctrl_loss_counts ctrl_model::rx_losses() const
{
    ctrl_loss_counts c;
    for (unsigned s = 0; s < ctrl_max_streams; s++) {
        c.in_use[s] = d_streams[s].links;
        for (unsigned l = 0; l < ctrl_max_links; l++)
            c.count[s][l] = d_streams[s].dst[l].naks;
    }
    return c;
}

ctrl_loss_counts ctrl_model::tx_losses() const
{
    // A TX stream's count belongs to the link it READs over now; on the others it
    // stays as it is, so that no link sees it change.
    ctrl_loss_counts c;
    for (unsigned t = 0; t < ctrl_max_tx_streams; t++) {
        const uint8_t link = d_tx[t].link;
        if (link == ctrl_tx_state::no_tx_link)
            continue;
        c.in_use[t] = 1u << link;
        c.count[t][link] = d_tx_rereads[t];
    }
    return c;
}

} // namespace emu
} // namespace rdma
} // namespace gr
