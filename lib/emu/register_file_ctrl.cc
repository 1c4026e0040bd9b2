/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's controller block (docs/register-map.md, "Controller", map 1.5
// with CAP_RATE_CONTROL), and what tells the controller of starts, stops and the
// links' changes.

#include "register_file.h"
#include <gnuradio/rdma/sample_format.h>

namespace gr {
namespace rdma {
namespace emu {

using axioe::status;

namespace {

// IPv4 bytes on the link per sample byte of a run: every packet's IPv4, UDP, BTH and
// ICRC, a RETH per message and an immediate (counted on every message: an upper bound,
// so that the controller never plans more than a link carries).
double wire_per_byte(const rx_descriptor& d)
{
    const double payload = d.payload_bytes;
    if (d.transport == regs::transport_type::udp)
        return (payload + 8 + 28) / payload;
    const double packets = (d.payload_bytes + d.path_mtu - 1) / d.path_mtu;
    return (payload + packets * (28 + 12 + 4) + 16 + 4) / payload;
}

// IPv4 bytes coming back per sample byte a TX stream READs: each RESPONSE packet's
// IPv4, UDP, BTH, AETH and ICRC (48 bytes, docs/register-map.md, TX_PATH_MTU).
double wire_per_byte(const tx_descriptor& d)
{
    const double packets = (d.payload_bytes + d.path_mtu - 1) / d.path_mtu;
    return (d.payload_bytes + packets * 48) / double(d.payload_bytes);
}

} // namespace

status register_file::read_ctrl(const regs::decoded_address& a, uint32_t& value) const
{
    namespace c = regs::ctrl;
    const device_controller::counts n = d_controller->counters();
    const auto word = [&](uint64_t v, uint32_t lo) {
        return a.offset == lo ? regs::low_word(v) : regs::high_word(v);
    };
    switch (a.offset) {
    case c::policy:
        value = d_controller->policy();
        return status::okay;
    case c::period_us:
        value = d_controller->period_us();
        return status::okay;
    case c::events_lo:
    case c::events_lo + 4:
        value = word(n.events, c::events_lo);
        return status::okay;
    case c::coalesced_lo:
    case c::coalesced_lo + 4:
        value = word(n.coalesced, c::coalesced_lo);
        return status::okay;
    case c::runs_lo:
    case c::runs_lo + 4:
        value = word(n.runs, c::runs_lo);
        return status::okay;
    case c::nak_cuts_lo:
    case c::nak_cuts_lo + 4:
        value = word(n.nak_cuts, c::nak_cuts_lo);
        return status::okay;
    case c::tx_nak_cuts_lo:
    case c::tx_nak_cuts_lo + 4:
        value = word(n.tx_nak_cuts, c::tx_nak_cuts_lo);
        return status::okay;
    default:
        break;
    }
    // A stream the device does not have reads 0.
    if (a.offset >= c::tx_rate && a.offset < c::rate_limit) {
        value = d_controller->tx_rate((a.offset - c::tx_rate) / 4);
        return status::okay;
    }
    if (a.offset >= c::tx_rate_limit && a.offset < c::tx_rate) {
        value = d_controller->tx_rate_limit((a.offset - c::tx_rate_limit) / 4);
        return status::okay;
    }
    if (a.offset >= c::rate) {
        value = d_controller->rate((a.offset - c::rate) / 4);
        return status::okay;
    }
    value = d_controller->rate_limit((a.offset - c::rate_limit) / 4);
    return status::okay;
}

status register_file::write_ctrl(const regs::decoded_address& a, uint32_t value)
{
    namespace c = regs::ctrl;
    bool ok = false;
    if (a.offset == c::policy)
        ok = d_controller->set_policy(value);
    else if (a.offset == c::period_us)
        ok = d_controller->set_period_us(value);
    else if (a.offset >= c::rate_limit && a.offset < c::rate) // not latched
        ok = d_controller->set_rate_limit((a.offset - c::rate_limit) / 4, value);
    else if (a.offset >= c::tx_rate_limit && a.offset < c::tx_rate)
        ok = d_controller->set_tx_rate_limit((a.offset - c::tx_rate_limit) / 4, value);
    return ok ? status::okay : status::slverr;
}

void register_file::ctrl_started(unsigned s, const rx_descriptor& d)
{
    if (!d_controller)
        return;
    ctrl_run run;
    run.engine = d_engines[s];
    run.routes = d_engines[s]->routes();
    run.demand = double(d.rate_num) / double(d.rate_den) * item_size(d.signal.format);
    run.wire_per_byte = wire_per_byte(d);
    run.link.fill(ctrl_run::no_link);
    for (unsigned i = 0; i < destination_table::max_destinations; i++)
        if (i == 0 || d.destinations[i].used()) {
            run.link[i] =
                uint8_t(i == 0 ? d.destinations[0].link : d.destinations[i].link);
            run.path_ns[i] =
                d_dest_words[s * regs::rx_dest_per_stream + i][regs::dst::path_ns / 4];
        }
    d_controller->stream_started(s, run);
}

void register_file::ctrl_tx_started(unsigned t, const tx_descriptor& d)
{
    if (!d_controller)
        return;
    ctrl_tx_run run;
    run.engine = d_tx[t];
    run.demand = double(d.rate_num) / double(d.rate_den) * item_size(d.format);
    run.wire_per_byte = wire_per_byte(d);
    run.link = uint8_t(__builtin_ctz(d.link_mask)); // validated: one bit
    d_controller->tx_stream_started(t, run);
}

void register_file::ctrl_link_changed(unsigned n)
{
    if (!d_controller || !d_link_states || n >= d_link_states->size())
        return;
    d_controller->link_changed(
        n, d_link_states->up(n) && d_link_states->control(n) == regs::link_control::up);
}

void register_file::ctrl_capacity(unsigned n)
{
    if (d_controller)
        d_controller->set_capacity(n, d_emu_links[n].rate);
}

} // namespace emu
} // namespace rdma
} // namespace gr
