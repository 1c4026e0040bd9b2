/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "register_file.h"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using axioe::status;
using regs::block;

// The metadata block as the metadata channel keeps it.
constexpr regs::field<metadata_registers> metadata_field_list[] = {
    regs::detail::member<&metadata_registers::dest_ipv4>("MD_DEST_IPV4"),
    regs::detail::member<&metadata_registers::dest_udp_port>("MD_DEST_UDP_PORT"),
    regs::detail::member<&metadata_registers::interval_us>("MD_INTERVAL_US"),
    regs::detail::member<&metadata_registers::control>("MD_CONTROL"),
    regs::detail::member<&metadata_registers::packets_sent>("MD_PACKETS_SENT"),
    regs::detail::member<&metadata_registers::packets_dropped>("MD_PACKETS_DROPPED"),
    regs::detail::member<&metadata_registers::source_udp_port>("MD_SOURCE_UDP_PORT"),
};
constexpr regs::field_set<metadata_registers> metadata_fields{ metadata_field_list };

// Registers the table marks owner-only: what a stranger could use to write into the
// owner's ring (QPN, PSN, rkey, VA) or to predict its timing, and the extension block.
// Status, counters, the device's own QPN and FIFO depth, RX_OWNER and RX_LEASE_MS stay
// readable by anyone, so that tools can say what is going on.
bool owner_only(const regs::decoded_address& a)
{
    return a.reg && a.reg->has(regs::flag::owner_only);
}

bool is_owner_register(uint32_t reg)
{
    return reg == regs::rx::owner_token_lo || reg == regs::rx::owner_token_hi ||
           reg == regs::rx::owner;
}

// The registers of block \p b a device stores (rw and latched: the RX descriptor, the
// emulator extension) at their reset values.
template <size_t N>
void reset_words(block b, std::array<uint32_t, N>& words)
{
    words.fill(0);
    for (const regs::register_info& r : regs::register_table) {
        if (r.where != b || r.mode != regs::access::rw || !r.has(regs::flag::latched))
            continue;
        for (uint32_t i = 0; i < r.repeat; i++) {
            const uint32_t at = r.offset / 4 + i * r.bits / 32;
            words[at] = regs::low_word(r.reset_value);
            if (r.bits == 64)
                words[at + 1] = regs::high_word(r.reset_value);
        }
    }
}

regs::identity_values identity_of(const device_identity& id,
                                  size_t links,
                                  size_t rx_streams,
                                  size_t rf_channels)
{
    regs::identity_values v;
    v.capabilities = id.capabilities;
    v.num_links = static_cast<uint32_t>(links);
    v.num_rx_streams = static_cast<uint32_t>(rx_streams);
    v.num_tx_streams = 0;
    v.max_payload = 4096;
    v.formats = (1u << regs::format::sc16) | (1u << regs::format::fc32);
    v.serial = id.serial;
    v.max_burst_words = id.max_burst_words;
    v.num_rf_channels =
        id.capabilities & regs::cap::rf ? static_cast<uint32_t>(rf_channels) : 0;
    return v;
}

// A float32 register of the scene: a deviation or an amplitude.
bool valid_level(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return std::isfinite(f) && f >= 0;
}

} // namespace

register_file::register_file(const device_identity& identity,
                             std::vector<link_info> links,
                             std::vector<rx_engine*> engines,
                             metadata_sender* metadata,
                             device_radio radio)
    : d_identity(identity),
      d_identity_values(
          identity_of(identity, links.size(), engines.size(), radio.channels.size())),
      d_links(std::move(links)),
      d_engines(std::move(engines)),
      d_metadata(metadata),
      d_own_clock(radio.clock ? nullptr : std::make_unique<device_clock>()),
      d_clock(radio.clock ? *radio.clock : *d_own_clock),
      d_channels(std::move(radio.channels)),
      d_commands(radio.commands),
      d_ownership(identity.capabilities & regs::cap::ownership),
      d_logger(make_logger("emulator registers")),
      d_link_weight(d_links.size(), uint32_t(regs::named("LINK_WEIGHT").reset_value)),
      d_rx_words(d_engines.size()),
      d_emu_words(d_engines.size()),
      d_log_cursor(d_engines.size()),
      d_owners(d_engines.size()),
      d_run_started(d_engines.size(), false),
      d_refusal(d_engines.size(), regs::error_code::none),
      d_rf_freq_lo(d_channels.size(), 0),
      d_bq_staged(d_engines.size()),
      d_bq_error(d_engines.size(), regs::bq::error::none)
{
    for (unsigned st = 0; st < d_engines.size(); st++)
        reset_descriptor(st);
}

void register_file::reset_descriptor(unsigned s)
{
    reset_words(block::rx, d_rx_words[s]);
    reset_words(block::emulator, d_emu_words[s]);
    d_bq_staged[s] = { 0,
                       0,
                       0,
                       0,
                       regs::low_word(regs::bq::next_message),
                       regs::high_word(regs::bq::next_message) };
    d_bq_error[s] = regs::bq::error::none;
}

regs::decoded_address register_file::decode(uint32_t address) const
{
    regs::decoded_address a = regs::decode(address,
                                           d_identity.capabilities,
                                           d_links.size(),
                                           d_engines.size(),
                                           d_channels.size());
    if ((a.where == block::metadata && !d_metadata) ||
        (a.where == block::command_queue && !d_commands))
        a.reg = nullptr;
    return a;
}

register_file::snapshot register_file::take_snapshot() const
{
    snapshot snap;
    snap.time_ns = d_clock.now();
    snap.last_pps_ns = d_clock.last_pps();
    snap.clock_status = d_clock.status();
    for (const rf_channel* c : d_channels)
        snap.rf.push_back(c->read());
    if (d_commands) {
        snap.cmd_status = d_commands->status();
        snap.cmd_executed = d_commands->executed();
        snap.cmd_late = d_commands->late();
    }
    for (const rx_engine* e : d_engines) {
        snap.counters.push_back(e->counters());
        snap.status.push_back(e->status());
        snap.start_time_ns.push_back(e->start_time_ns());
    }
    for (size_t n = 0; n < d_links.size(); n++) {
        const link_info& l = d_links[n];
        regs::link_values v;
        v.ipv4 = l.ipv4;
        v.mac = l.mac;
        v.udp_sport = l.udp_sport;
        v.mtu = l.mtu;
        v.status = 1; // up: the emulator's links are sockets
        v.weight = d_link_weight[n];
        v.roce_port = l.udp_port;
        if (l.stats) {
            v.tx_packets = l.stats->tx_packets.load(std::memory_order_relaxed);
            v.tx_bytes = l.stats->tx_bytes.load(std::memory_order_relaxed);
            v.rx_packets = l.stats->rx_packets.load(std::memory_order_relaxed);
        }
        snap.links.push_back(v);
    }
    if (d_metadata)
        snap.metadata = d_metadata->registers();
    return snap;
}

status register_file::read(const socket_address& client,
                           uint32_t address,
                           uint32_t* out,
                           size_t count,
                           bool fixed)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    hear_from(client);
    // Whole-burst checks before anything is read (a read of the fault log pops it):
    // addresses first (DECERR), then ownership (NOT_OWNER).
    for (size_t i = 0; i < count; i++)
        if (!decode(fixed ? address : address + 4 * uint32_t(i)).reg)
            return status::decerr;
    for (size_t i = 0; i < count; i++)
        if (refused(client, fixed ? address : address + 4 * uint32_t(i), false))
            return status::not_owner;
    const snapshot snap = take_snapshot();
    for (size_t i = 0; i < count; i++) {
        const regs::decoded_address a =
            decode(fixed ? address : address + 4 * uint32_t(i));
        const status st = is_fault_log(a) ? read_fault_log(a.index, out[i])
                                          : read_one(client, a, snap, out[i]);
        if (st != status::okay)
            return st;
    }
    return status::okay;
}

bool register_file::is_fault_log(const regs::decoded_address& a) const
{
    return a.reg && a.where == block::emulator && a.offset == regs::emu::fault_log;
}

status register_file::read_fault_log(unsigned s, uint32_t& value)
{
    // Three words per record (message lo, message hi, kind); an empty log reads as
    // all-ones records.
    log_cursor& c = d_log_cursor[s];
    if (c.next == 3) {
        fault_record r;
        if (d_engines[s]->faults().pop(r))
            c.words = { regs::low_word(r.message), regs::high_word(r.message), r.kind };
        else
            c.words = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
        c.next = 0;
    }
    value = c.words[c.next++];
    return status::okay;
}

status register_file::write(const socket_address& client,
                            uint32_t address,
                            const uint32_t* words,
                            size_t count,
                            bool fixed)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    hear_from(client);
    // A burst that reaches a hole executes nothing (AXIoE: DECERR has no side effects).
    for (size_t i = 0; i < count; i++)
        if (!decode(fixed ? address : address + 4 * uint32_t(i)).reg)
            return status::decerr;
    if (touches_owner_registers(address, count, fixed))
        return write_owner(client, address, words, count, fixed);
    // Nor does a burst that touches anything another client owns, or pushes a command
    // for it.
    for (size_t i = 0; i < count; i++)
        if (refused(client, fixed ? address : address + 4 * uint32_t(i), true)) {
            note_refused_push(address, words, count, fixed);
            return status::not_owner;
        }
    if (push_refused(client, address, words, count, fixed))
        return status::not_owner;
    // The metadata block applies a burst at one instant (destination and port together).
    if (decode(address).where == block::metadata)
        return d_metadata->write_registers(
            address - regs::metadata_base, words, count, fixed);
    for (size_t i = 0; i < count; i++) {
        const regs::decoded_address a =
            decode(fixed ? address : address + 4 * uint32_t(i));
        const bool command =
            a.where == block::command_queue && a.reg->mode != regs::access::ro;
        const status st =
            command ? write_command(client, a.offset, words[i]) : write_one(a, words[i]);
        if (st != status::okay)
            return st;
    }
    return status::okay;
}

status register_file::read_one(const socket_address& client,
                               const regs::decoded_address& a,
                               const snapshot& snap,
                               uint32_t& value) const
{
    // Write-only registers (RX_COMMAND, RX_OWNER_TOKEN) read 0.
    if (a.reg->mode == regs::access::wo) {
        value = 0;
        return status::okay;
    }
    switch (a.where) {
    case block::identity:
        if (a.offset == regs::scratch)
            value = d_scratch;
        else
            regs::identity_fields.read_word(d_identity_values, a.offset, value);
        return status::okay;
    case block::clock:
        return read_clock(a, snap, value);
    case block::link:
        regs::link_fields.read_word(snap.links[a.index], a.offset, value);
        return status::okay;
    case block::rx:
        return read_rx(client, a, snap, value);
    case block::metadata:
        metadata_fields.read_word(snap.metadata, a.offset, value);
        return status::okay;
    case block::emulator:
        if (a.offset == regs::emu::fault_log_level)
            value = static_cast<uint32_t>(d_engines[a.index]->faults().size());
        else
            value = d_emu_words[a.index][a.offset / 4];
        return status::okay;
    case block::rf:
        regs::rf_fields.read_word(snap.rf[a.index], a.offset, value);
        return status::okay;
    case block::command_queue:
        switch (a.offset + regs::cmdq_base) {
        case regs::cmd::status:
            value = snap.cmd_status;
            break;
        case regs::cmd::executed:
            value = snap.cmd_executed;
            break;
        case regs::cmd::late:
            value = snap.cmd_late;
            break;
        default: // the staging registers, as written
            value = d_staged[a.offset / 4];
        }
        return status::okay;
    case block::scene:
        regs::scene_fields.read_word(d_scene, a.offset, value);
        return status::okay;
    case block::burst_queue:
        value = a.offset == regs::bq::status ? burst_queue_status(a.index)
                                             : d_bq_staged[a.index][a.offset / 4];
        return status::okay;
    }
    return status::decerr;
}

status register_file::read_rx(const socket_address& client,
                              const regs::decoded_address& a,
                              const snapshot& snap,
                              uint32_t& value) const
{
    const unsigned s = a.index;
    switch (a.offset) {
    case regs::rx::status:
        value = d_refusal[s] != regs::error_code::none
                    ? (snap.status[s] & regs::status::running) | regs::status::error |
                          (d_refusal[s] << regs::status::error_shift)
                    : snap.status[s];
        return status::okay;
    case regs::rx::source_qpn:
        value = rx_source_qpn(s);
        return status::okay;
    case regs::rx::fifo_us:
        value = d_identity.fifo_us;
        return status::okay;
    case regs::rx::owner:
        value = !d_owners[s].owned             ? regs::owner_state::unowned
                : d_owners[s].client == client ? regs::owner_state::mine
                                               : regs::owner_state::other;
        return status::okay;
    case regs::rx::lease_ms:
        value = d_owners[s].lease_ms;
        return status::okay;
    case regs::rx::start_time_lo:
    case regs::rx::start_time_hi: {
        // After START: the time of sample 0 as the engine fixed it, also once the run
        // is over (done, stopped), until the host writes the register again.
        const uint64_t t =
            d_run_started[s]
                ? snap.start_time_ns[s]
                : regs::join_words(d_rx_words[s][regs::rx::start_time_lo / 4],
                                   d_rx_words[s][regs::rx::start_time_hi / 4]);
        value =
            a.offset == regs::rx::start_time_lo ? regs::low_word(t) : regs::high_word(t);
        return status::okay;
    }
    default:
        // A counter of the run, or a descriptor register as written.
        if (!regs::rx_counter_fields.read_word(snap.counters[s], a.offset, value))
            value = d_rx_words[s][a.offset / 4];
        return status::okay;
    }
}

status register_file::write_one(const regs::decoded_address& a, uint32_t value)
{
    // An address that reads but cannot be written is a refused access, not a hole.
    if (a.reg->mode == regs::access::ro)
        return status::slverr;
    switch (a.where) {
    case block::identity: // SCRATCH
        d_scratch = value;
        return status::okay;
    case block::link: // LINK_WEIGHT: kept, no effect with one link
        d_link_weight[a.index] = value;
        return status::okay;
    case block::rx:
        return write_rx(a.index, a.offset, value);
    case block::emulator:
        return write_emu(a.index, a.offset, value);
    case block::clock:
        return write_clock(a.offset, value);
    case block::rf:
        return write_rf(a.index, a.offset, value);
    case block::scene:
        return write_scene(a.offset, value);
    case block::burst_queue:
        return write_burst_queue(a.index, a.offset, value);
    default:
        return status::slverr;
    }
}

status register_file::write_rx(unsigned s, uint32_t reg, uint32_t value)
{
    if (reg == regs::rx::command) {
        if (value == regs::command::start)
            return start(s);
        if (value == regs::command::stop) {
            d_engines[s]->stop();
            return status::okay;
        }
        return status::slverr;
    }
    if (reg == regs::rx::lease_ms) {
        // Not latched by START: an owner may lengthen its lease while it streams.
        if (!d_owners[s].owned || value < regs::lease::min_ms ||
            value > regs::lease::max_ms)
            return status::slverr; // claim first; the write answers NOT_OWNER to others
        d_owners[s].lease_ms = value;
        return status::okay;
    }
    // The descriptor registers (the only other writable ones) are latched by START.
    if (d_engines[s]->status() & regs::status::running)
        return status::slverr;
    if (reg == regs::rx::start_time_lo || reg == regs::rx::start_time_hi)
        d_run_started[s] = false;
    d_rx_words[s][reg / 4] = value;
    if (reg == regs::rx::rate_den) // the second of the pair: the rate the device makes
        apply_master_clock(s);
    return status::okay;
}

void register_file::apply_master_clock(unsigned s)
{
    // With a master clock M the device makes M / d for an integer d >= 1: the d nearest
    // to M / requested (halves up). A rate of 0 is left for START to refuse.
    const uint64_t m = d_identity.master_clock_hz;
    uint32_t& num = d_rx_words[s][regs::rx::rate_num / 4];
    uint32_t& den = d_rx_words[s][regs::rx::rate_den / 4];
    if (m == 0 || num == 0 || den == 0)
        return;
    using u128 = unsigned __int128;
    const u128 d = (u128(2) * m * den + num) / (u128(2) * num);
    num = static_cast<uint32_t>(m);
    den = static_cast<uint32_t>(std::clamp<u128>(d, 1, UINT32_MAX));
}

status register_file::start(unsigned s)
{
    rx_engine& engine = *d_engines[s];
    apply_master_clock(s); // also a pair written other than NUM, then DEN
    rx_descriptor d = rx_descriptor_of(s);
    d.scene = d_scene; // a run sees the scene as START finds it
    // Checked in the order of docs/register-map.md: busy, the descriptor (the engine
    // does both), then the time. A START_TIME already past is refused: the device
    // cannot take the samples that are gone, and starting "now" instead would break the
    // stream's timeline.
    const bool running = engine.status() & regs::status::running;
    const unsigned link_mtu = d_links.empty() ? 0 : d_links[0].mtu;
    if (!running && validate(d, link_mtu) == regs::error_code::none &&
        d.start_time_ns != 0 && d.start_time_ns < d_clock.now()) {
        d_refusal[s] = regs::error_code::start_time_passed;
        return status::slverr;
    }
    d_refusal[s] = regs::error_code::none;
    if (d_metadata) // its records time samples at this run's rate
        d_metadata->configure_stream(s, d.rate_num, d.rate_den);
    if (engine.start(d) != regs::error_code::none)
        return status::slverr;
    d_run_started[s] = true;
    return status::okay;
}

status register_file::write_emu(unsigned s, uint32_t reg, uint32_t value)
{
    // The scene needs the RF channels (and sees them through the scene block).
    const uint32_t last_signal =
        d_channels.empty() ? regs::signal::extremes : regs::signal_scene;
    if (reg == regs::emu::signal && value > last_signal)
        return status::slverr;
    if ((reg == regs::emu::loss_ppm || reg == regs::emu::duplicate_ppm ||
         reg == regs::emu::corrupt_ppm || reg == regs::emu::delay_ppm) &&
        value > 1000000)
        return status::slverr;
    if (reg == regs::emu::fault_count && value > regs::emu::max_faults)
        return status::slverr;
    if (d_engines[s]->status() & regs::status::running)
        return status::slverr;
    d_emu_words[s][reg / 4] = value;
    return status::okay;
}

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
    }
}

// ---- Ownership (docs/register-map.md, "Ownership") -------------------------------

void register_file::hear_from(const socket_address& client)
{
    if (!d_ownership)
        return;
    // A lapsed lease ends before the request is looked at: an owner that was silent
    // too long finds its stream stopped and free, like everybody else.
    const int64_t now = monotonic_ns();
    expire_leases(now);
    for (owner& o : d_owners)
        if (o.owned && o.client == client)
            o.last_heard_ns = now;
}

int64_t register_file::expire_leases(int64_t now_ns)
{
    int64_t next = INT64_MAX; // ns until the next lease may lapse
    for (unsigned s = 0; s < d_owners.size(); s++) {
        owner& o = d_owners[s];
        if (!o.owned)
            continue;
        const int64_t silent_ns = now_ns - o.last_heard_ns;
        const int64_t lease_ns = int64_t(o.lease_ms) * 1000000;
        if (silent_ns < lease_ns) {
            next = std::min(next, lease_ns - silent_ns);
            continue;
        }
        const bool running = d_engines[s]->status() & regs::status::running;
        d_logger->warn("RX stream {}: owner {} silent for {} ms, beyond its lease of {} "
                       "ms: stream {}freed",
                       s,
                       o.client.to_string(),
                       silent_ns / 1000000,
                       o.lease_ms,
                       running ? "stopped and " : "");
        free_stream(s);
    }
    return next;
}

std::chrono::microseconds register_file::tick()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_ownership)
        return std::chrono::seconds(1);
    const int64_t next_ns = expire_leases(monotonic_ns());
    // Wake just after the next lease can lapse (the server caps the wait at 1 s).
    return std::chrono::microseconds(std::min<int64_t>(next_ns / 1000 + 1, 1000000));
}

bool register_file::owned_by_other(unsigned s, const socket_address& client) const
{
    return d_owners[s].owned && d_owners[s].client != client;
}

bool register_file::refused(const socket_address& client,
                            uint32_t address,
                            bool is_write) const
{
    if (!d_ownership)
        return false;
    const regs::decoded_address a = decode(address);
    // A stream's RX and extension blocks: every write, and the reads the table marks
    // owner-only, are the owner's. So are the writes to its RF channel.
    if (a.where == block::rx || a.where == block::emulator)
        return owned_by_other(a.index, client) && (is_write || owner_only(a));
    if (a.where == block::rf || a.where == block::burst_queue)
        return is_write && owned_by_other(a.index, client);
    // What acts on every stream: the metadata destination, the device time and its
    // references, the scene.
    const bool device_wide =
        a.where == block::metadata || a.where == block::scene ||
        (a.where == block::clock && a.reg && (a.reg->capability & regs::cap::time_set));
    return is_write && device_wide && device_wide_write_refused(client);
}

bool register_file::device_wide_write_refused(const socket_address& client) const
{
    // Only an owner may write it, unless nobody owns anything (a device without owners
    // behaves as before).
    bool any_owned = false;
    for (const owner& o : d_owners) {
        if (o.owned && o.client == client)
            return false;
        any_owned = any_owned || o.owned;
    }
    return any_owned;
}

bool register_file::touches_owner_registers(uint32_t address,
                                            size_t count,
                                            bool fixed) const
{
    if (!d_ownership)
        return false;
    for (size_t i = 0; i < count; i++) {
        const regs::decoded_address a =
            decode(fixed ? address : address + 4 * static_cast<uint32_t>(i));
        if (a.reg && a.where == block::rx && is_owner_register(a.offset))
            return true;
    }
    return false;
}

status register_file::write_owner(const socket_address& client,
                                  uint32_t address,
                                  const uint32_t* words,
                                  size_t count,
                                  bool fixed)
{
    // Three forms, nothing else (a burst may not mix them with other registers):
    // [token lo, token hi] claims, [token lo, token hi, TAKE_OVER] takes over, and
    // [RELEASE] at RX_OWNER releases. touches_owner_registers() found the stream.
    const unsigned s = (address - regs::rx_base) / regs::rx_stride;
    const uint32_t reg = (address - regs::rx_base) % regs::rx_stride;
    const bool incrementing = !fixed || count == 1;
    if (incrementing && reg == regs::rx::owner_token_lo && (count == 2 || count == 3)) {
        const uint64_t token = regs::join_words(words[0], words[1]);
        if (token == 0 || (count == 3 && words[2] != regs::owner_command::take_over))
            return status::slverr;
        return claim(s, client, token, count == 3);
    }
    if (incrementing && reg == regs::rx::owner && count == 1 &&
        words[0] == regs::owner_command::release)
        return release(s, client);
    return status::slverr;
}

status register_file::claim(unsigned s,
                            const socket_address& client,
                            uint64_t token,
                            bool take_over)
{
    owner& o = d_owners[s];
    // The owner's address already grants it everything, so it may change its token;
    // the token lets an owner that lost its address (a new socket) claim again.
    const bool allowed = !o.owned || o.client == client || o.token == token;
    if (!allowed && !take_over)
        return status::not_owner;
    if (!allowed) {
        d_logger->warn("RX stream {}: {} takes it over from {}{}",
                       s,
                       client.to_string(),
                       o.client.to_string(),
                       d_engines[s]->status() & regs::status::running
                           ? ", whose run is stopped"
                           : "");
        free_stream(s); // the previous owner's run writes into the previous owner's ring
    } else if (!o.owned) {
        d_logger->debug("RX stream {}: claimed by {}", s, client.to_string());
    } else if (o.client != client) {
        d_logger->info("RX stream {}: its owner's token moves it from {} to {}",
                       s,
                       o.client.to_string(),
                       client.to_string());
    }
    o.owned = true;
    o.client = client;
    o.token = token;
    o.last_heard_ns = monotonic_ns();
    return status::okay;
}

status register_file::release(unsigned s, const socket_address& client)
{
    const owner& o = d_owners[s];
    if (!o.owned)
        return status::okay; // nothing to give up; a stream nobody owns keeps running
    if (o.client != client)
        return status::not_owner;
    d_logger->debug("RX stream {}: released by {}", s, client.to_string());
    free_stream(s);
    return status::okay;
}

void register_file::free_stream(unsigned s)
{
    if (d_engines[s]->status() & regs::status::running)
        d_engines[s]->stop();
    d_owners[s] = owner{}; // the lease too is back at its reset value
    // The next owner must not read this one's QPN, PSN, rkey and VA.
    reset_descriptor(s);
}

register_file::owner_info register_file::owner_of(unsigned s) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    owner_info info;
    info.owned = d_owners[s].owned;
    info.client = d_owners[s].client;
    info.lease_ms = d_owners[s].lease_ms;
    return info;
}

rx_descriptor register_file::rx_descriptor_of(unsigned s) const
{
    const register_words& w = d_rx_words[s];
    const register_words& e = d_emu_words[s];
    rx_descriptor d;
    regs::rx_descriptor_fields.unpack(w.data(), 0, w.size(), d);
    d.first_message = regs::join_words(w[regs::rx::first_message_lo / 4],
                                       w[regs::rx::first_message_lo / 4 + 1]);
    d.queued = (d_identity.capabilities & regs::cap::burst_queue) &&
               d.num_samples == regs::bq::queued_mode;
    d.fifo_us = d_identity.fifo_us;
    regs::signal_fields.unpack(e.data(), 0, e.size(), d.signal);
    d.signal.format = d.format;
    d.signal.sample_rate = double(d.rate_num) / double(d.rate_den ? d.rate_den : 1);
    regs::impairment_values random;
    regs::impairment_fields.unpack(e.data(), 0, e.size(), random);
    impairment_config& imp = d.impairments;
    imp.seed = random.seed;
    imp.loss_ppm = random.loss_ppm;
    imp.loss_burst = random.loss_burst;
    imp.duplicate_ppm = random.duplicate_ppm;
    imp.corrupt_ppm = random.corrupt_ppm;
    imp.delay_ppm = random.delay_ppm;
    imp.delay_messages = random.delay_messages;
    imp.table_size = e[regs::emu::fault_count / 4];
    for (uint32_t i = 0; i < imp.table_size; i++) {
        const uint32_t at =
            (regs::emu::fault_table + i * regs::emu::fault_entry_bytes) / 4;
        imp.table[i] = { regs::join_words(e[at], e[at + 1]), e[at + 2] };
    }
    return d;
}

} // namespace emu
} // namespace rdma
} // namespace gr
