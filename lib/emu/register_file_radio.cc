/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's radio blocks (docs/radio.md): the clock's set/source/PPS
// registers, RF channels, the command queue, the emulator's scene and the burst queue.

#include "register_file.h"
#include <cmath>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using axioe::status;
using regs::block;

// A float32 register of the scene: a deviation or an amplitude.
bool valid_level(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return std::isfinite(f) && f >= 0;
}

} // namespace

// ---- The radio (docs/radio.md) ---------------------------------------------------

status register_file::read_clock(const regs::decoded_address& a,
                                 const snapshot& snap,
                                 uint32_t& value) const
{
    namespace cs = regs::clock_set;
    const bool high = a.offset != a.reg->offset;
    switch (a.reg->offset + regs::address_of(block::clock, 0, 0)) {
    case regs::clock_time_ns_lo:
        value = high ? regs::high_word(snap.time_ns) : regs::low_word(snap.time_ns);
        return status::okay;
    case cs::last_pps_lo:
        value =
            high ? regs::high_word(snap.last_pps_ns) : regs::low_word(snap.last_pps_ns);
        return status::okay;
    case cs::status:
        value = snap.clock_status;
        return status::okay;
    case cs::clock_sources:
    case cs::time_sources:
        value = device_clock::available_sources;
        return status::okay;
    case cs::clock_source:
        value = d_clock.clock_source();
        return status::okay;
    case cs::time_source:
        value = d_clock.time_source();
        return status::okay;
    }
    return status::decerr;
}

status register_file::write_clock(uint32_t reg, uint32_t value)
{
    namespace cs = regs::clock_set;
    switch (regs::address_of(block::clock, 0, reg)) {
    case cs::now_lo:
        d_set_now_lo = value;
        return status::okay;
    case cs::now_lo + 4:
        d_clock.set_now(regs::join_words(d_set_now_lo, value));
        break;
    case cs::pps_lo:
        d_set_pps_lo = value;
        return status::okay;
    case cs::pps_lo + 4:
        d_clock.set_at_next_pps(regs::join_words(d_set_pps_lo, value));
        break;
    case cs::clock_source:
        return d_clock.set_clock_source(value) ? status::okay : status::slverr;
    case cs::time_source:
        return d_clock.set_time_source(value) ? status::okay : status::slverr;
    default:
        return status::slverr;
    }
    // The queued commands' times now fall on other instants of the oscillator.
    if (d_commands)
        d_commands->clock_changed();
    return status::okay;
}

status register_file::write_rf(unsigned c, uint32_t reg, uint32_t value)
{
    rf_channel& ch = *d_channels[c];
    switch (reg) {
    case regs::rf::freq_lo:
        d_rf_freq_lo[c] = value;
        return status::okay;
    case regs::rf::freq_lo + 4: // tunes with the high word, as a 64-bit value written
        ch.tune(regs::join_words(d_rf_freq_lo[c], value), 0);
        return status::okay;
    case regs::rf::gain:
        ch.set_gain(static_cast<int32_t>(value), 0);
        return status::okay;
    case regs::rf::bandwidth:
        ch.set_bandwidth(value);
        return status::okay;
    case regs::rf::antenna:
        return ch.set_antenna(value) ? status::okay : status::slverr;
    default:
        return status::slverr;
    }
}

status
register_file::write_command(const socket_address& client, uint32_t reg, uint32_t value)
{
    const uint32_t at = regs::cmdq_base + reg;
    if (at != regs::cmd::push) {
        if (at > regs::cmd::push) // CMD_PUSH is the last writable register
            return status::slverr;
        d_staged[reg / 4] = value;
        return status::okay;
    }
    if (value == regs::cmd::op::clear) {
        // Not the commands for what another client owns: those are its owner's.
        uint32_t mine = 0;
        for (unsigned s = 0; s < d_engines.size() && s < 32; s++)
            mine |= owned_by_other(s, client) ? 0 : 1u << s;
        d_commands->clear(mine);
        return status::okay;
    }
    if (value != regs::cmd::op::push)
        return status::slverr;
    command_queue::command c;
    c.time_ns = regs::join_words(d_staged[0], d_staged[1]);
    c.address = d_staged[2];
    c.data = regs::join_words(d_staged[3], d_staged[4]);
    return d_commands->push(c) == regs::cmd::error::none ? status::okay : status::slverr;
}

bool register_file::push_refused(const socket_address& client,
                                 uint32_t address,
                                 const uint32_t* words,
                                 size_t count,
                                 bool fixed)
{
    // A PUSH for a channel or stream another client owns, with CMD_ADDR as it will be
    // when the PUSH executes (the burst usually writes it just before).
    if (!d_commands || !d_ownership)
        return false;
    std::array<uint32_t, 5> staged = d_staged;
    for (size_t i = 0; i < count; i++) {
        const uint32_t at = fixed ? address : address + 4 * uint32_t(i);
        if (at >= regs::cmd::time_lo && at < regs::cmd::push) {
            staged[(at - regs::cmd::time_lo) / 4] = words[i];
            continue;
        }
        if (at != regs::cmd::push || words[i] != regs::cmd::op::push)
            continue;
        command_queue::command c;
        c.time_ns = regs::join_words(staged[0], staged[1]);
        c.address = staged[2];
        c.data = regs::join_words(staged[3], staged[4]);
        unsigned s = 0;
        if (d_commands->check(c, s) == regs::cmd::error::none && s < d_engines.size() &&
            owned_by_other(s, client)) {
            d_commands->refuse(regs::cmd::error::not_owner);
            return true;
        }
    }
    return false;
}

status register_file::write_scene(uint32_t reg, uint32_t value)
{
    const uint32_t at = regs::scene_base + reg;
    if (at == regs::scene::tones && value > regs::scene::max_tones)
        return status::slverr;
    const bool level = at == regs::scene::noise ||
                       (at >= regs::scene::tone_base &&
                        (at - regs::scene::tone_base) % regs::scene::tone_stride ==
                            regs::scene::tone_amplitude);
    if (level && !valid_level(value))
        return status::slverr;
    uint32_t words[2];
    const regs::register_info& r = *regs::covering(block::scene, reg);
    // One word of a field: the other as it is.
    regs::scene_fields.read_word(d_scene, r.offset, words[0]);
    if (r.bits == 64)
        regs::scene_fields.read_word(d_scene, r.offset + 4, words[1]);
    words[(reg - r.offset) / 4] = value;
    regs::scene_fields.unpack(words, r.offset, r.words(), d_scene);
    return status::okay;
}

status register_file::write_burst_queue(unsigned s, uint32_t reg, uint32_t value)
{
    if (reg != regs::bq::push) { // a staging register (BQ_STATUS is read-only)
        d_bq_staged[s][reg / 4] = value;
        return status::okay;
    }
    if (value == regs::bq::op::clear) {
        d_engines[s]->clear_bursts();
        return status::okay;
    }
    if (value != regs::bq::op::push)
        return status::slverr;
    const burst_staging& w = d_bq_staged[s];
    rx_engine::queued_burst b;
    b.time_ns = regs::join_words(w[0], w[1]);
    b.samples = regs::join_words(w[2], w[3]);
    b.first_message = regs::join_words(w[4], w[5]);
    d_bq_error[s] = d_engines[s]->push_burst(b);
    return d_bq_error[s] == regs::bq::error::none ? status::okay : status::slverr;
}

uint32_t register_file::burst_queue_status(unsigned s) const
{
    return d_engines[s]->bursts_queued() | regs::bq::emulator_capacity << 8 |
           d_bq_error[s] << 16;
}

void register_file::note_refused_push(uint32_t address,
                                      const uint32_t* words,
                                      size_t count,
                                      bool fixed)
{
    // A stranger's PUSH to a stream's burst queue: nothing queued, and ERROR says why.
    for (size_t i = 0; i < count; i++) {
        const regs::decoded_address a =
            decode(fixed ? address : address + 4 * uint32_t(i));
        if (a.where == block::burst_queue && a.offset == regs::bq::push &&
            words[i] == regs::bq::op::push)
            d_bq_error[a.index] = regs::bq::error::not_owner;
        if (a.where == block::tx_burst_queue && a.offset == regs::tbq::push &&
            (words[i] == regs::tbq::op::start || words[i] == regs::tbq::op::end))
            d_tbq_error[a.index] = regs::tbq::error::not_owner;
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
