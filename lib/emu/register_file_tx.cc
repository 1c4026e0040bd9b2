/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's TX streams (docs/transmit.md): the TX block, the emulator's TX
// extension block and the TX burst queue. Ownership is the RX streams'
// (register_file_ownership.cc).

#include "register_file.h"

namespace gr {
namespace rdma {
namespace emu {

using axioe::status;

tx_descriptor register_file::tx_descriptor_of(unsigned t) const
{
    const register_words& w = d_tx_words[t];
    const register_words& e = d_tx_emu_words[t];
    tx_descriptor d;
    regs::tx_descriptor_fields.unpack(w.data(), 0, w.size(), d);
    regs::tx_emulation_fields.unpack(e.data(), 0, e.size(), d.emulation);
    d.queued = (d_identity.capabilities & regs::cap::tx_bursts) &&
               d.num_samples == regs::tbq::queued_mode;
    return d;
}

status register_file::read_tx(const socket_address& client,
                              const regs::decoded_address& a,
                              const snapshot& snap,
                              uint32_t& value) const
{
    const unsigned t = a.index;
    const owner& o = d_owners[d_engines.size() + t];
    switch (a.offset) {
    case regs::tx::status:
        value = d_tx_refusal[t] != regs::error_code::none
                    ? (snap.tx_status[t] & regs::status::running) | regs::status::error |
                          (d_tx_refusal[t] << regs::status::error_shift)
                    : snap.tx_status[t];
        return status::okay;
    case regs::tx::source_qpn:
        value = tx_source_qpn(t);
        return status::okay;
    case regs::tx::owner:
        value = !o.owned             ? regs::owner_state::unowned
                : o.client == client ? regs::owner_state::mine
                                     : regs::owner_state::other;
        return status::okay;
    case regs::tx::lease_ms:
        value = o.lease_ms;
        return status::okay;
    case regs::tx::start_time_lo:
    case regs::tx::start_time_hi: {
        // After START: the device time of sample 0 as the engine fixed it (START +
        // lead when 0 was written), until the host writes the register again.
        const uint64_t time =
            d_tx_run_started[t]
                ? snap.tx_start_time_ns[t]
                : regs::join_words(d_tx_words[t][regs::tx::start_time_lo / 4],
                                   d_tx_words[t][regs::tx::start_time_hi / 4]);
        value = a.offset == regs::tx::start_time_lo ? regs::low_word(time)
                                                    : regs::high_word(time);
        return status::okay;
    }
    default:
        if (!regs::tx_counter_fields.read_word(snap.tx_stats[t], a.offset, value) &&
            !regs::tx_burst_counter_fields.read_word(snap.tx_stats[t], a.offset, value))
            value = d_tx_words[t][a.offset / 4];
        return status::okay;
    }
}

status register_file::write_tx(unsigned t, uint32_t reg, uint32_t value)
{
    tx_engine& engine = *d_tx[t];
    if (reg == regs::tx::command) {
        if (value == regs::command::start)
            return start_tx(t);
        if (value == regs::command::stop) {
            engine.stop();
            if (d_controller)
                d_controller->tx_stream_stopped(t);
            return status::okay;
        }
        return status::slverr;
    }
    owner& o = d_owners[d_engines.size() + t];
    if (reg == regs::tx::lease_ms) {
        if (!o.owned || value < regs::lease::min_ms || value > regs::lease::max_ms)
            return status::slverr;
        o.lease_ms = value;
        return status::okay;
    }
    // The descriptor registers are latched by START.
    if (engine.status() & regs::status::running)
        return status::slverr;
    if (reg == regs::tx::notify_interval && value == 0)
        return status::slverr; // N >= 1: the host must hear of every slot it may reuse
    if (reg == regs::tx::start_time_lo || reg == regs::tx::start_time_hi)
        d_tx_run_started[t] = false;
    d_tx_words[t][reg / 4] = value;
    return status::okay;
}

status register_file::start_tx(unsigned t)
{
    tx_engine& engine = *d_tx[t];
    const tx_descriptor d = tx_descriptor_of(t);
    // As the RX START: busy and the descriptor first (the engine), then the time.
    const bool running = engine.status() & regs::status::running;
    const unsigned link_mtu = d_links.empty() ? 0 : d_links[0].mtu;
    if (!running && validate(d, link_mtu) == regs::error_code::none &&
        d.start_time_ns != 0 && d.start_time_ns < d_clock.now()) {
        d_tx_refusal[t] = regs::error_code::start_time_passed;
        return status::slverr;
    }
    d_tx_refusal[t] = regs::error_code::none;
    if (engine.start(d) != regs::error_code::none)
        return status::slverr;
    d_tx_run_started[t] = true;
    ctrl_tx_started(t, d);
    return status::okay;
}

status register_file::write_tx_emu(unsigned t, uint32_t reg, uint32_t value)
{
    if (reg == regs::emu_tx::check && value > 1)
        return status::slverr;
    if (reg == regs::emu_tx::loss_ppm && value > 1000000)
        return status::slverr;
    if (d_tx[t]->status() & regs::status::running)
        return status::slverr;
    d_tx_emu_words[t][reg / 4] = value;
    return status::okay;
}

status register_file::write_tx_burst_queue(unsigned t, uint32_t reg, uint32_t value)
{
    if (reg != regs::tbq::push) { // a staging register (TBQ_STATUS is read-only)
        d_tbq_staged[t][reg / 4] = value;
        return status::okay;
    }
    if (value == regs::tbq::op::clear) {
        d_tx[t]->clear_entries();
        return status::okay;
    }
    if (value != regs::tbq::op::start && value != regs::tbq::op::end)
        return status::slverr;
    const std::array<uint32_t, 6>& w = d_tbq_staged[t];
    tx_entry e;
    e.op = value;
    e.time_ns = value == regs::tbq::op::start ? regs::join_words(w[0], w[1]) : 0;
    e.item = regs::join_words(w[2], w[3]);
    d_tbq_error[t] = d_tx[t]->push_entry(e);
    return d_tbq_error[t] == regs::tbq::error::none ? status::okay : status::slverr;
}

uint32_t register_file::tx_burst_queue_status(unsigned t) const
{
    return d_tx[t]->entries_queued() | regs::tbq::emulator_capacity << 8 |
           d_tbq_error[t] << 16;
}

} // namespace emu
} // namespace rdma
} // namespace gr
