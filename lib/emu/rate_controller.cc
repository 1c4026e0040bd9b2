/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rate_controller.h"

namespace gr {
namespace rdma {
namespace emu {

bool rate_controller::set_period_us(uint32_t us)
{
    if (us == 0 || us > max_period_us)
        return false;
    d_period_us = us;
    return true;
}

bool rate_controller::set_policy(uint32_t policy)
{
    if (policy > uint32_t(ctrl_policy::shortest_rtt))
        return false;
    d_policy = ctrl_policy(policy);
    d_dirty = true;
    return true;
}

void rate_controller::set_links(unsigned stream, uint32_t mask)
{
    d_model.set_links(stream, mask);
    d_dirty = true;
}

void rate_controller::set_capacity(unsigned link, double bytes_per_s)
{
    d_model.set_capacity(link, bytes_per_s);
    d_dirty = true;
}

void rate_controller::set_tx(unsigned t, const ctrl_tx_state& state)
{
    d_model.set_tx(t, state);
    d_dirty = true;
}

int64_t rate_controller::next_run_ns() const
{
    if (d_queue.pending() == 0 && !d_dirty)
        return INT64_MAX;
    return d_ran ? d_last_run_ns + int64_t(d_period_us) * 1000 : INT64_MIN;
}

bool rate_controller::tick(int64_t now_ns)
{
    if (!due(now_ns))
        return false;
    const size_t n = d_queue.take(d_records.data());
    for (size_t i = 0; i < n; i++)
        d_model.apply(d_records[i]);
    compute();
    // A link regaining what NAKs or re-reads cut needs runs, events or not.
    d_dirty = d_policy == ctrl_policy::water_filling &&
              (d_backoff.recovering() || d_tx_backoff.recovering());
    d_ran = true;
    d_last_run_ns = now_ns;
    d_runs++;
    return true;
}

template <class Input>
void rate_controller::fill(const ctrl_loss_counts& losses,
                           Input input,
                           nak_backoff& backoff,
                           water_filling_result& filled,
                           bool& have_filling)
{
    // One direction (the RX streams' WRITEs or the TX streams' READs): its losses cut
    // what the links may carry, then the streams are filled over what is left. The
    // input is built only when water filling runs.
    if (d_policy != ctrl_policy::water_filling) {
        backoff.observe(losses);
        have_filling = false;
        return;
    }
    water_filling_input in = input();
    backoff.apply(losses, filled, have_filling, in);
    water_filling::compute(in, filled);
    have_filling = true;
}

void rate_controller::compute()
{
    d_computations++;
    fill(
        d_model.rx_losses(),
        [this] { return d_model.filling_input(); },
        d_backoff,
        d_filled,
        d_have_filling);
    for (unsigned s = 0; s < ctrl_max_streams; s++) {
        ctrl_output& o = d_out[s];
        if (d_model.stream(s).links == 0) {
            o = ctrl_output(); // not in use: nothing to send, nowhere
            continue;
        }
        const uint32_t usable = d_model.usable(s);
        ctrl_link_parts equal{};
        for (unsigned l = 0; l < ctrl_max_links; l++)
            equal[l] = usable >> l & 1;
        o.rate = d_model.demand(s);
        o.limited = false;
        switch (d_policy) {
        case ctrl_policy::none:
            // What the registers hold at reset; the device applies none of it.
            o.weight = ctrl_weights::from_parts(equal);
            break;
        case ctrl_policy::water_filling: {
            // A stream with no usable link has no share to keep and is not held: its
            // messages must keep leaving (to be dropped at the cut, counted) so that
            // its schedule reaches its next window, where the epochs and the rejoins
            // that give it a link again happen. Held near 0 it would reach none.
            if (usable == 0) {
                o.weight = ctrl_weights::from_parts(equal);
                break;
            }
            o.rate = d_filled.rate[s];
            o.limited = d_filled.limited[s];
            ctrl_link_parts flow;
            for (unsigned l = 0; l < ctrl_max_links; l++)
                flow[l] = d_filled.flow[s][l];
            // A stream held to 0 keeps its links (equal weights), so that its
            // schedule still has destinations when its share comes back.
            o.weight = ctrl_weights::from_parts(o.rate > 0 ? flow : equal);
            break;
        }
        case ctrl_policy::shortest_rtt: {
            std::array<uint64_t, ctrl_max_links> rtt;
            for (unsigned l = 0; l < ctrl_max_links; l++)
                rtt[l] = d_model.stream(s).dst[l].rtt_ns;
            o.weight = ctrl_weights::from_parts(ctrl_weights::by_rtt(rtt, usable));
            break;
        }
        }
    }
    compute_tx();
}

void rate_controller::compute_tx()
{
    // Part of the run's one computation. A TX stream's re-reads (its requester read
    // lost RESPONSEs again) are its link's NAKs, in the other direction.
    const bool filling = d_policy == ctrl_policy::water_filling;
    fill(
        d_model.tx_losses(),
        [this] { return d_model.tx_filling_input(); },
        d_tx_backoff,
        d_tx_filled,
        d_have_tx_filling);
    for (unsigned t = 0; t < ctrl_max_tx_streams; t++) {
        ctrl_output& o = d_tx_out[t];
        o = ctrl_output();
        if (d_model.tx(t).link == ctrl_tx_state::no_tx_link)
            continue;
        o.weight[d_model.tx(t).link] = ctrl_weights::total;
        o.rate = filling ? d_tx_filled.rate[t] : d_model.tx_demand(t);
        o.limited = filling && d_tx_filled.limited[t];
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
