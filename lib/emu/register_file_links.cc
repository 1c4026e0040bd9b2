/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's map 1.5 (docs/register-map.md, "Several links"): link control,
// the destinations and epochs of the RX streams, the emulated links.

#include "register_file.h"

namespace gr {
namespace rdma {
namespace emu {

using axioe::status;
using regs::block;

uint32_t register_file::link_status(unsigned n) const
{
    return !d_link_states || n >= d_link_states->size() || d_link_states->up(n) ? 1 : 0;
}

status register_file::read_link(const regs::decoded_address& a,
                                const snapshot& snap,
                                uint32_t& value) const
{
    if (regs::link_fields.read_word(snap.links[a.index], a.offset, value))
        return status::okay;
    regs::link_control_values v;
    if (d_link_states && a.index < d_link_states->size()) {
        v.control = d_link_states->control(a.index);
        v.down_events = d_link_states->down_events(a.index);
    }
    v.capacity = d_links[a.index].channel ? d_emu_links[a.index].rate : 0;
    regs::link_control_fields.read_word(v, a.offset, value);
    return status::okay;
}

status register_file::write_link(unsigned n, uint32_t reg, uint32_t value)
{
    if (reg == regs::link::weight) { // kept for the host; the device does not apply it
        d_link_weight[n] = value;
        return status::okay;
    }
    if (reg == regs::link::control && d_link_states && n < d_link_states->size()) {
        if (!d_link_states->set_control(n, value))
            return status::slverr;
        ctrl_link_changed(n);
        return status::okay;
    }
    return status::slverr;
}

register_file::destination_words register_file::fresh_destination()
{
    destination_words w{};
    for (const regs::register_info& r : regs::register_table)
        if (r.where == block::rx_destination && r.mode == regs::access::rw) {
            w[r.offset / 4] = regs::low_word(r.reset_value);
            if (r.bits == 64)
                w[r.offset / 4 + 1] = regs::high_word(r.reset_value);
        }
    return w;
}

void register_file::reset_destinations(unsigned s)
{
    for (unsigned d = 0; d < regs::rx_dest_per_stream; d++)
        d_dest_words[s * regs::rx_dest_per_stream + d] = fresh_destination();
}

void register_file::destinations_of(unsigned s, rx_descriptor& d) const
{
    // Destination 0's address registers are the RX block's (rx_descriptor has them).
    for (unsigned i = 0; i < regs::rx_dest_per_stream; i++) {
        const destination_words& w = d_dest_words[s * regs::rx_dest_per_stream + i];
        regs::destination_fields.unpack(w.data(), 0, w.size(), d.destinations[i]);
    }
}

uint32_t register_file::validate_destinations(const rx_descriptor& d) const
{
    return destination_table::validate(d, d_link_states);
}

status register_file::read_destination(const regs::decoded_address& a,
                                       uint32_t& value) const
{
    const unsigned s = a.index / regs::rx_dest_per_stream;
    const unsigned d = a.index % regs::rx_dest_per_stream;
    if (d == 0 && a.offset < regs::dst::alias_end) {
        value = d_rx_words[s][(regs::dst::rx_alias_offset + a.offset) / 4];
        return status::okay;
    }
    if (a.offset == regs::dst::share) { // the share as RX_SHARES is now
        value = regs::share_of_destination(d, shares_of(s));
        return status::okay;
    }
    if (a.reg->mode == regs::access::ro) {
        const std::shared_ptr<destination_table> routes = d_engines[s]->routes();
        const regs::destination_counters c =
            routes ? routes->counters(d) : regs::destination_counters{};
        regs::destination_counter_fields.read_word(c, a.offset, value);
        return status::okay;
    }
    if (a.offset == regs::dst::weight &&
        (d_engines[s]->status() & regs::status::running)) {
        // The weight in force: the host's last write, or the controller's since.
        const std::shared_ptr<destination_table> routes = d_engines[s]->routes();
        value = routes ? routes->weight(d) : d_dest_words[a.index][a.offset / 4];
        return status::okay;
    }
    value = d_dest_words[a.index][a.offset / 4];
    return status::okay;
}

status register_file::read_destination_rc(const regs::decoded_address& a,
                                          uint32_t& value) const
{
    // What destination d's requester measured; the counters of the last run stay until
    // the next START (anyone may read them, as DST_MESSAGES).
    const unsigned s = a.index / regs::rx_dest_per_stream;
    const unsigned d = a.index % regs::rx_dest_per_stream;
    if (a.offset == regs::dst_rc::source_qpn) {
        value = rx_dest_source_qpn(s, d);
        return status::okay;
    }
    const rc_destination_stats& r = d_engines[s]->rc_destination(d);
    regs::rc_destination_counters c;
    c.rtt_ns = r.rtt_ns.load();
    c.rtt_samples = r.rtt_samples.load();
    c.retransmits = r.retransmits.load();
    c.naks = r.naks.load();
    c.abandoned = r.abandoned.load();
    regs::rc_destination_counter_fields.read_word(c, a.offset, value);
    return status::okay;
}

status register_file::write_destination(const regs::decoded_address& a, uint32_t value)
{
    const unsigned s = a.index / regs::rx_dest_per_stream;
    const unsigned d = a.index % regs::rx_dest_per_stream;
    if (d == 0 && a.offset < regs::dst::alias_end) // one register at two addresses
        return write_rx(s, regs::dst::rx_alias_offset + a.offset, value);
    const bool running = d_engines[s]->status() & regs::status::running;
    if (a.offset == regs::dst::weight) {
        if (value > regs::dst::max_weight)
            return status::slverr;
        // Not latched: while the run goes on it opens an epoch.
        if (running) {
            const std::shared_ptr<destination_table> routes = d_engines[s]->routes();
            if (!routes || !routes->set_weight(d, value))
                return status::slverr;
        }
        d_dest_words[a.index][a.offset / 4] = value;
        if (d_controller)
            d_controller->weight_written(s, d, value);
        return status::okay;
    }
    if (a.offset == regs::dst::path_ns) { // host feedback: not latched
        d_dest_words[a.index][a.offset / 4] = value;
        if (d_controller)
            d_controller->path_written(s, d, value);
        return status::okay;
    }
    if (running) // latched by START
        return status::slverr;
    d_dest_words[a.index][a.offset / 4] = value;
    return status::okay;
}

status register_file::read_epoch(const regs::decoded_address& a,
                                 const snapshot& snap,
                                 uint32_t& value) const
{
    const std::shared_ptr<destination_table> routes = d_engines[a.index]->routes();
    const snapshot::epoch_header& header = snap.epochs[a.index];
    switch (a.offset) {
    case regs::epoch::count:
        value = header.count;
        return status::okay;
    case regs::epoch::kept:
        value = regs::epoch::emulator_kept;
        return status::okay;
    case regs::epoch::scheduled_lo:
    case regs::epoch::scheduled_lo + 4: {
        const uint64_t v = header.scheduled;
        value = a.offset == regs::epoch::scheduled_lo ? regs::low_word(v)
                                                      : regs::high_word(v);
        return status::okay;
    }
    default: {
        const uint32_t at = a.offset - regs::epoch::entries;
        const unsigned j = at / regs::epoch::entry_bytes;
        const regs::epoch_values e =
            routes ? routes->epoch_entry(j) : regs::epoch_values{};
        uint32_t w[regs::epoch::entry_words];
        e.to_words(w);
        value = w[(at % regs::epoch::entry_bytes) / 4];
        return status::okay;
    }
    }
}

status register_file::read_emu_link(const regs::decoded_address& a, uint32_t& value) const
{
    if (a.offset == regs::emu_link::rate_lo) { // as written, acting or not yet
        value = d_emu_rate_lo[a.index];
        return status::okay;
    }
    if (regs::emu_link_fields.read_word(d_emu_links[a.index], a.offset, value))
        return status::okay;
    link_channel* channel = d_links[a.index].channel;
    const regs::emu_link_counters c =
        channel ? channel->counters() : regs::emu_link_counters{};
    regs::emu_link_counter_fields.read_word(c, a.offset, value);
    return status::okay;
}

status register_file::write_emu_link(unsigned n, uint32_t reg, uint32_t value)
{
    namespace el = regs::emu_link;
    if ((reg == el::down && value > 1) || (reg == el::loss_ppm && value > 1000000) ||
        ((reg == el::delay_us || reg == el::reorder_us) && value > el::max_delay_us) ||
        (reg == el::queue_us && value > el::max_queue_us))
        return status::slverr;
    if (reg == el::rate_lo) { // acts with its high word
        d_emu_rate_lo[n] = value;
        return status::okay;
    }
    regs::emu_link_values v = d_emu_links[n];
    switch (reg) {
    case el::down:
        v.down = value;
        break;
    case el::loss_ppm:
        v.loss_ppm = value;
        break;
    case el::delay_us:
        v.delay_us = value;
        break;
    case el::reorder_us:
        v.reorder_us = value;
        break;
    case el::rate_lo + 4:
        v.rate = regs::join_words(d_emu_rate_lo[n], value);
        break;
    case el::seed:
        v.seed = value;
        break;
    case el::queue_us:
        v.queue_us = value;
        break;
    default:
        return status::slverr;
    }
    d_emu_links[n] = v;
    if (d_links[n].channel)
        d_links[n].channel->configure(v);
    if (d_link_states && n < d_link_states->size())
        d_link_states->note_status(n); // the streams see a cut at their next window
    if (reg == el::down && value == 1) // back up, it rejoins only by LINK_CONTROL = 1
        ctrl_link_changed(n);
    else if (reg == el::rate_lo + 4) // LINK_CAPACITY reads it
        ctrl_capacity(n);
    return status::okay;
}

} // namespace emu
} // namespace rdma
} // namespace gr
