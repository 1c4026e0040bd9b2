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
                                  size_t rf_channels,
                                  size_t tx_streams)
{
    regs::identity_values v;
    v.capabilities = id.capabilities;
    v.num_links = static_cast<uint32_t>(links);
    v.num_rx_streams = static_cast<uint32_t>(rx_streams);
    v.num_tx_streams =
        id.capabilities & regs::cap::tx ? static_cast<uint32_t>(tx_streams) : 0;
    v.max_payload = 4096;
    v.formats = (1u << regs::format::sc16) | (1u << regs::format::fc32) |
                (1u << regs::format::sc8);
    v.serial = id.serial;
    v.max_burst_words = id.max_burst_words;
    v.num_rf_channels =
        id.capabilities & regs::cap::rf ? static_cast<uint32_t>(rf_channels) : 0;
    return v;
}

} // namespace

register_file::register_file(const device_identity& identity,
                             std::vector<link_info> links,
                             std::vector<rx_engine*> engines,
                             metadata_sender* metadata,
                             device_radio radio,
                             std::vector<tx_engine*> tx,
                             link_set* link_states,
                             device_controller* controller)
    : d_identity(identity),
      d_identity_values(identity_of(
          identity, links.size(), engines.size(), radio.channels.size(), tx.size())),
      d_links(std::move(links)),
      d_engines(std::move(engines)),
      d_tx(identity.capabilities & regs::cap::tx ? std::move(tx)
                                                 : std::vector<tx_engine*>{}),
      d_metadata(metadata),
      d_own_clock(radio.clock ? nullptr : std::make_unique<device_clock>()),
      d_clock(radio.clock ? *radio.clock : *d_own_clock),
      d_channels(std::move(radio.channels)),
      d_commands(radio.commands),
      d_ownership(identity.capabilities & regs::cap::ownership),
      d_logger(make_logger("emulator registers")),
      d_link_weight(d_links.size(), uint32_t(regs::named("LINK_WEIGHT").reset_value)),
      d_link_states(link_states),
      d_controller(identity.capabilities & regs::cap::rate_control ? controller
                                                                   : nullptr),
      d_dest_words(d_engines.size() * regs::rx_dest_per_stream),
      d_emu_links(d_links.size()),
      d_emu_rate_lo(d_links.size(), 0),
      d_rx_words(d_engines.size()),
      d_emu_words(d_engines.size()),
      d_log_cursor(d_engines.size()),
      d_owners(d_engines.size() * (1 + regs::max_shares) + d_tx.size()),
      d_tx_words(d_tx.size()),
      d_tx_emu_words(d_tx.size()),
      d_tx_run_started(d_tx.size(), false),
      d_tx_refusal(d_tx.size(), regs::error_code::none),
      d_tbq_staged(d_tx.size()),
      d_tbq_error(d_tx.size(), regs::tbq::error::none),
      d_run_started(d_engines.size(), false),
      d_refusal(d_engines.size(), regs::error_code::none),
      d_rf_freq_lo(d_channels.size(), 0),
      d_bq_staged(d_engines.size()),
      d_bq_error(d_engines.size(), regs::bq::error::none)
{
    for (unsigned st = 0; st < d_engines.size(); st++)
        reset_descriptor(st);
    for (unsigned t = 0; t < d_tx.size(); t++)
        reset_tx_descriptor(t);
}

void register_file::reset_tx_descriptor(unsigned t)
{
    reset_words(block::tx, d_tx_words[t]);
    reset_words(block::tx_emulator, d_tx_emu_words[t]);
    d_tbq_staged[t].fill(0);
    d_tbq_error[t] = regs::tbq::error::none;
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
    reset_destinations(s);
}

regs::decoded_address register_file::decode(uint32_t address) const
{
    regs::decoded_address a = regs::decode(address,
                                           d_identity.capabilities,
                                           d_links.size(),
                                           d_engines.size(),
                                           d_channels.size(),
                                           d_tx.size());
    if ((a.where == block::metadata && !d_metadata) ||
        (a.where == block::command_queue && !d_commands) ||
        (a.where == block::ctrl && !d_controller))
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
        snapshot::epoch_header h;
        if (const std::shared_ptr<destination_table> routes = e->routes()) {
            h.scheduled = routes->scheduled();
            h.count = routes->epoch_count();
        }
        snap.epochs.push_back(h);
    }
    for (const tx_engine* e : d_tx) {
        snap.tx_stats.push_back(e->counters());
        snap.tx_status.push_back(e->status());
        snap.tx_start_time_ns.push_back(e->start_time_ns());
    }
    for (size_t n = 0; n < d_links.size(); n++) {
        const link_info& l = d_links[n];
        regs::link_values v;
        v.ipv4 = l.ipv4;
        v.mac = l.mac;
        v.udp_sport = l.udp_sport;
        v.mtu = l.mtu;
        v.status = link_status(static_cast<unsigned>(n));
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
        return read_link(a, snap, value);
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
    case block::tx:
        return read_tx(client, a, snap, value);
    case block::tx_emulator:
        value = d_tx_emu_words[a.index][a.offset / 4];
        return status::okay;
    case block::tx_burst_queue:
        value = a.offset == regs::tbq::status ? tx_burst_queue_status(a.index)
                                              : d_tbq_staged[a.index][a.offset / 4];
        return status::okay;
    case block::rx_destination:
        return read_destination(a, value);
    case block::rx_epoch:
        return read_epoch(a, snap, value);
    case block::emu_link:
        return read_emu_link(a, value);
    case block::ctrl:
        return read_ctrl(a, value);
    case block::rx_share:
        return read_share(client, a, snap, value);
    case block::rx_dest_rc:
        return read_destination_rc(a, value);
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
    case regs::rx::stop_cause:
        value = d_engines[s]->stop_cause();
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
    case regs::rx::share_ready:
        value = share_ready(s);
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
    case block::link:
        return write_link(a.index, a.offset, value);
    case block::rx_destination:
        return write_destination(a, value);
    case block::emu_link:
        return write_emu_link(a.index, a.offset, value);
    case block::ctrl:
        return write_ctrl(a, value);
    case block::rx_share:
        return write_share(a, value);
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
    case block::tx:
        return write_tx(a.index, a.offset, value);
    case block::tx_emulator:
        return write_tx_emu(a.index, a.offset, value);
    case block::tx_burst_queue:
        return write_tx_burst_queue(a.index, a.offset, value);
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
            if (d_controller)
                d_controller->stream_stopped(s);
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
    if (reg == regs::rx::shares || reg == regs::rx::share_block)
        return write_share_layout(s, reg, value);
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
    // stream's timeline. A run paced by its host (emu_pace=consumer, a test mode) is a
    // slower device whose timeline may lag the clock: it starts at once, its samples
    // keeping their nominal times.
    const bool running = engine.status() & regs::status::running;
    const unsigned link_mtu = d_links.empty() ? 0 : d_links[0].mtu;
    if (!running && validate(d, link_mtu) == regs::error_code::none &&
        validate_destinations(d) == regs::error_code::none && d.start_time_ns != 0 &&
        d.start_time_ns < d_clock.now() && !engine.paced_next()) {
        d_refusal[s] = regs::error_code::start_time_passed;
        return status::slverr;
    }
    d_refusal[s] = regs::error_code::none;
    if (d_metadata) // its records time samples at this run's rate
        d_metadata->configure_stream(s, d.rate_num, d.rate_den);
    if (engine.start(d) != regs::error_code::none)
        return status::slverr;
    d_run_started[s] = true;
    ctrl_started(s, d);
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

} // namespace emu
} // namespace rdma
} // namespace gr
