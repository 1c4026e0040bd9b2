/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_clock.h"
#include "register_file.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using axioe::status;

// RX descriptor registers the host may write while the stream is stopped.
bool rx_writable(uint32_t reg)
{
    switch (reg) {
    case regs::rx::dest_ipv4:
    case regs::rx::dest_udp_port:
    case regs::rx::dest_qpn:
    case regs::rx::start_psn:
    case regs::rx::rkey:
    case regs::rx::va_lo:
    case regs::rx::va_hi:
    case regs::rx::ring_bytes_lo:
    case regs::rx::ring_bytes_hi:
    case regs::rx::payload_bytes:
    case regs::rx::path_mtu:
    case regs::rx::notify_interval:
    case regs::rx::rate_num:
    case regs::rx::rate_den:
    case regs::rx::format:
    case regs::rx::link_mask:
    case regs::rx::transport:
    case regs::rx::start_time_lo:
    case regs::rx::start_time_hi:
    case regs::rx::num_samples_lo:
    case regs::rx::num_samples_hi:
    case regs::rx::retx_window_bytes:
    case regs::rx::dest_mac_hi:
    case regs::rx::dest_mac_lo:
        return true;
    default:
        return false;
    }
}

bool emu_register_exists(uint32_t reg)
{
    return reg <= regs::emu::delay_messages ||
           (reg >= regs::emu::fault_count && reg <= regs::emu::fault_log_level);
}

// RX registers only the stream's owner may read while it is owned: what a stranger
// could use to write into the owner's ring (QPN, PSN, rkey, VA) or to predict its
// timing. Status, counters, the device's own QPN and FIFO depth, RX_OWNER and
// RX_LEASE_MS stay readable by anyone, so that tools can say what is going on.
bool rx_secret(uint32_t reg)
{
    return (reg >= regs::rx::dest_ipv4 && reg <= regs::rx::dest_mac_lo &&
            reg != regs::rx::source_qpn);
}

bool is_owner_register(uint32_t reg)
{
    return reg == regs::rx::owner_token_lo || reg == regs::rx::owner_token_hi ||
           reg == regs::rx::owner;
}

// The device's QPN for RX stream s: what the host uses as its remote QPN.
uint32_t source_qpn(unsigned s) { return rx_source_qpn(s); }

// RC retransmit window after reset: 4 MiB, ~0.05 s of 20 MS/s sc16.
constexpr uint32_t default_retx_window_bytes = 4u << 20;

} // namespace

register_file::register_file(const device_identity& identity,
                             std::vector<link_info> links,
                             std::vector<rx_engine*> engines,
                             metadata_sender* metadata)
    : d_identity(identity),
      d_links(std::move(links)),
      d_engines(std::move(engines)),
      d_metadata(metadata),
      d_ownership(identity.capabilities & regs::cap::ownership),
      d_logger(make_logger("emulator registers")),
      d_rx_words(d_engines.size()),
      d_emu_words(d_engines.size()),
      d_log_cursor(d_engines.size()),
      d_run_started(d_engines.size(), false),
      d_owners(d_engines.size())
{
    for (unsigned st = 0; st < d_engines.size(); st++)
        reset_descriptor(st);
}

void register_file::reset_descriptor(unsigned s)
{
    block& words = d_rx_words[s];
    words.fill(0);
    words[regs::rx::path_mtu / 4] = 1024;
    words[regs::rx::payload_bytes / 4] = 1024;
    words[regs::rx::notify_interval / 4] = 16;
    words[regs::rx::rate_den / 4] = 1;
    words[regs::rx::link_mask / 4] = 1;
    words[regs::rx::retx_window_bytes / 4] = default_retx_window_bytes;
    block& emu = d_emu_words[s];
    emu.fill(0);
    emu[regs::emu::tone_freq_hz / 4] = 100000;
    const float amplitude = 0.5f;
    std::memcpy(&emu[regs::emu::amplitude / 4], &amplitude, 4);
    emu[regs::emu::seed / 4] = 1;
    emu[regs::emu::loss_burst / 4] = 1;
}

register_file::snapshot register_file::take_snapshot() const
{
    snapshot snap;
    snap.time_ns = device_time_ns();
    for (const rx_engine* e : d_engines) {
        snap.counters.push_back(e->counters());
        snap.status.push_back(e->status());
        snap.start_time_ns.push_back(e->start_time_ns());
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
    const snapshot snap = take_snapshot();
    // Whole-burst checks before anything is read (a read of the fault log pops it):
    // addresses first (DECERR), then ownership (NOT_OWNER).
    for (size_t i = 0; i < count; i++) {
        const uint32_t a = fixed ? address : address + 4 * i;
        uint32_t ignored;
        if (!is_fault_log(a) && read_one(client, a, snap, ignored) == status::decerr)
            return status::decerr;
    }
    for (size_t i = 0; i < count; i++)
        if (refused(client, fixed ? address : address + 4 * i, false))
            return status::not_owner;
    for (size_t i = 0; i < count; i++) {
        const uint32_t a = fixed ? address : address + 4 * i;
        const status st = is_fault_log(a) ? read_fault_log(a, out[i])
                                          : read_one(client, a, snap, out[i]);
        if (st != status::okay)
            return st;
    }
    return status::okay;
}

bool register_file::is_fault_log(uint32_t address) const
{
    return address >= regs::emu_base &&
           address < regs::emu_base + d_engines.size() * regs::emu_stride &&
           (address - regs::emu_base) % regs::emu_stride == regs::emu::fault_log;
}

status register_file::read_fault_log(uint32_t address, uint32_t& value)
{
    // Three words per record (message lo, message hi, kind); an empty log reads as
    // all-ones records.
    const unsigned s = (address - regs::emu_base) / regs::emu_stride;
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
    const snapshot snap = take_snapshot();
    for (size_t i = 0; i < count; i++) {
        uint32_t ignored;
        if (read_one(client, fixed ? address : address + 4 * i, snap, ignored) ==
            status::decerr)
            return status::decerr;
    }
    if (touches_owner_registers(address, count, fixed))
        return write_owner(client, address, words, count, fixed);
    // Nor does a burst that touches anything another client owns.
    for (size_t i = 0; i < count; i++)
        if (refused(client, fixed ? address : address + 4 * i, true))
            return status::not_owner;
    // The metadata block applies a burst at one instant (destination and port together).
    if (d_metadata && address >= regs::metadata_base &&
        address < regs::metadata_base + regs::metadata_block_bytes)
        return d_metadata->write_registers(
            address - regs::metadata_base, words, count, fixed);
    for (size_t i = 0; i < count; i++) {
        const status st = write_one(client, fixed ? address : address + 4 * i, words[i]);
        if (st != status::okay)
            return st;
    }
    return status::okay;
}

status register_file::read_one(const socket_address& client,
                               uint32_t address,
                               const snapshot& snap,
                               uint32_t& value) const
{
    switch (address) {
    case regs::id_magic:
        value = regs::magic_value;
        return status::okay;
    case regs::id_version:
        value = regs::map_version;
        return status::okay;
    case regs::id_capabilities:
        value = d_identity.capabilities;
        return status::okay;
    case regs::id_num_links:
        value = static_cast<uint32_t>(d_links.size());
        return status::okay;
    case regs::id_num_rx_streams:
        value = static_cast<uint32_t>(d_engines.size());
        return status::okay;
    case regs::id_num_tx_streams:
        value = 0;
        return status::okay;
    case regs::id_max_payload:
        value = 4096;
        return status::okay;
    case regs::id_formats:
        value = (1u << regs::format::sc16) | (1u << regs::format::fc32);
        return status::okay;
    case regs::id_serial_lo:
        value = regs::low_word(d_identity.serial);
        return status::okay;
    case regs::id_serial_hi:
        value = regs::high_word(d_identity.serial);
        return status::okay;
    case regs::id_max_burst_words:
        value = axioe::max_burst_words;
        return status::okay;
    case regs::scratch:
        value = d_scratch;
        return status::okay;
    case regs::clock_time_ns_lo:
        value = regs::low_word(snap.time_ns);
        return status::okay;
    case regs::clock_time_ns_hi:
        value = regs::high_word(snap.time_ns);
        return status::okay;
    default:
        break;
    }
    if (address >= regs::link_base &&
        address < regs::link_base + d_links.size() * regs::link_stride) {
        const link_info& l = d_links[(address - regs::link_base) / regs::link_stride];
        switch ((address - regs::link_base) % regs::link_stride) {
        case regs::link::ipv4:
            value = l.ipv4;
            return status::okay;
        case regs::link::mac_hi:
            value = (uint32_t(l.mac[0]) << 8) | l.mac[1];
            return status::okay;
        case regs::link::mac_lo:
            value = (uint32_t(l.mac[2]) << 24) | (uint32_t(l.mac[3]) << 16) |
                    (uint32_t(l.mac[4]) << 8) | l.mac[5];
            return status::okay;
        case regs::link::udp_sport:
            value = l.udp_sport;
            return status::okay;
        case regs::link::roce_port:
            value = l.udp_port;
            return status::okay;
        case regs::link::mtu:
            value = l.mtu;
            return status::okay;
        case regs::link::status:
            value = 1;
            return status::okay;
        case regs::link::weight:
            value = 1;
            return status::okay;
        default:
            return status::decerr;
        }
    }
    if (address >= regs::rx_base &&
        address < regs::rx_base + d_engines.size() * regs::rx_stride) {
        const unsigned s = (address - regs::rx_base) / regs::rx_stride;
        return read_rx(
            client, s, (address - regs::rx_base) % regs::rx_stride, snap, value);
    }
    if (d_metadata && address >= regs::metadata_base &&
        address < regs::metadata_base + regs::metadata_block_bytes)
        return metadata_sender::read_register(
            snap.metadata, address - regs::metadata_base, value);
    if (address >= regs::emu_base &&
        address < regs::emu_base + d_engines.size() * regs::emu_stride) {
        const unsigned s = (address - regs::emu_base) / regs::emu_stride;
        const uint32_t reg = (address - regs::emu_base) % regs::emu_stride;
        if (reg == regs::emu::fault_log_level) {
            value = static_cast<uint32_t>(d_engines[s]->faults().size());
            return status::okay;
        }
        if (!emu_register_exists(reg) || reg == regs::emu::fault_log)
            return reg == regs::emu::fault_log ? status::okay : status::decerr;
        value = d_emu_words[s][reg / 4];
        return status::okay;
    }
    return status::decerr;
}

status register_file::read_rx(const socket_address& client,
                              unsigned s,
                              uint32_t reg,
                              const snapshot& snap,
                              uint32_t& value) const
{
    const rx_counters& c = snap.counters[s];
    if (d_ownership) {
        switch (reg) {
        case regs::rx::owner_token_lo:
        case regs::rx::owner_token_hi:
            value = 0; // the token is a secret, even from its owner
            return status::okay;
        case regs::rx::owner:
            value = !d_owners[s].owned             ? regs::owner_state::unowned
                    : d_owners[s].client == client ? regs::owner_state::mine
                                                   : regs::owner_state::other;
            return status::okay;
        case regs::rx::lease_ms:
            value = d_owners[s].lease_ms;
            return status::okay;
        default:
            break;
        }
    }
    switch (reg) {
    case regs::rx::command:
        value = 0;
        return status::okay;
    case regs::rx::status:
        value = snap.status[s];
        return status::okay;
    case regs::rx::source_qpn:
        value = source_qpn(s);
        return status::okay;
    case regs::rx::fifo_us:
        value = d_identity.fifo_us;
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
        value = reg == regs::rx::start_time_lo ? regs::low_word(t) : regs::high_word(t);
        return status::okay;
    }
    case regs::rx::packets_sent_lo:
        value = regs::low_word(c.packets_sent);
        return status::okay;
    case regs::rx::packets_sent_hi:
        value = regs::high_word(c.packets_sent);
        return status::okay;
    case regs::rx::samples_emitted_lo:
        value = regs::low_word(c.samples_emitted);
        return status::okay;
    case regs::rx::samples_emitted_hi:
        value = regs::high_word(c.samples_emitted);
        return status::okay;
    case regs::rx::packets_dropped_lo:
        value = regs::low_word(c.packets_dropped);
        return status::okay;
    case regs::rx::packets_dropped_hi:
        value = regs::high_word(c.packets_dropped);
        return status::okay;
    case regs::rx::samples_dropped_lo:
        value = regs::low_word(c.samples_dropped);
        return status::okay;
    case regs::rx::samples_dropped_hi:
        value = regs::high_word(c.samples_dropped);
        return status::okay;
    case regs::rx::imm_sent_lo:
        value = regs::low_word(c.imm_sent);
        return status::okay;
    case regs::rx::imm_sent_hi:
        value = regs::high_word(c.imm_sent);
        return status::okay;
    case regs::rx::packets_faulted_lo:
        value = regs::low_word(c.packets_faulted);
        return status::okay;
    case regs::rx::packets_faulted_hi:
        value = regs::high_word(c.packets_faulted);
        return status::okay;
    case regs::rx::samples_faulted_lo:
        value = regs::low_word(c.samples_faulted);
        return status::okay;
    case regs::rx::samples_faulted_hi:
        value = regs::high_word(c.samples_faulted);
        return status::okay;
    case regs::rx::packets_duplicated_lo:
        value = regs::low_word(c.packets_duplicated);
        return status::okay;
    case regs::rx::packets_duplicated_hi:
        value = regs::high_word(c.packets_duplicated);
        return status::okay;
    case regs::rx::messages_delayed_lo:
        value = regs::low_word(c.messages_delayed);
        return status::okay;
    case regs::rx::messages_delayed_hi:
        value = regs::high_word(c.messages_delayed);
        return status::okay;
    case regs::rx::naks_received:
        value = static_cast<uint32_t>(c.naks_received); // 32 bits: wraps
        return status::okay;
    case regs::rx::retransmits:
        value = static_cast<uint32_t>(c.retransmits);
        return status::okay;
    case regs::rx::zero_substituted_lo:
        value = regs::low_word(c.zero_substituted);
        return status::okay;
    case regs::rx::zero_substituted_hi:
        value = regs::high_word(c.zero_substituted);
        return status::okay;
    default:
        if (!rx_writable(reg))
            return status::decerr;
        value = d_rx_words[s][reg / 4];
        return status::okay;
    }
}

status
register_file::write_one(const socket_address& client, uint32_t address, uint32_t value)
{
    if (address == regs::scratch) {
        d_scratch = value;
        return status::okay;
    }
    if (address >= regs::rx_base &&
        address < regs::rx_base + d_engines.size() * regs::rx_stride) {
        const unsigned s = (address - regs::rx_base) / regs::rx_stride;
        return write_rx(s, (address - regs::rx_base) % regs::rx_stride, value);
    }
    if (address >= regs::emu_base &&
        address < regs::emu_base + d_engines.size() * regs::emu_stride) {
        const unsigned s = (address - regs::emu_base) / regs::emu_stride;
        return write_emu(s, (address - regs::emu_base) % regs::emu_stride, value);
    }
    uint32_t ignored;
    // An address that reads but cannot be written is a refused access, not a hole.
    return read_one(client, address, take_snapshot(), ignored) == status::okay
               ? status::slverr
               : status::decerr;
}

status register_file::write_rx(unsigned s, uint32_t reg, uint32_t value)
{
    rx_engine& engine = *d_engines[s];
    if (reg == regs::rx::command) {
        if (value == regs::command::start) {
            const rx_descriptor d = rx_descriptor_of(s);
            if (d_metadata) // its records time samples at this run's rate
                d_metadata->configure_stream(s, d.rate_num, d.rate_den);
            if (engine.start(d) != regs::error_code::none)
                return status::slverr;
            d_run_started[s] = true;
            return status::okay;
        }
        if (value == regs::command::stop) {
            engine.stop();
            return status::okay;
        }
        return status::slverr;
    }
    if (d_ownership && reg == regs::rx::lease_ms) {
        // Not latched by START: an owner may lengthen its lease while it streams.
        if (!d_owners[s].owned || value < regs::lease::min_ms ||
            value > regs::lease::max_ms)
            return status::slverr; // claim first; the write answers NOT_OWNER to others
        d_owners[s].lease_ms = value;
        return status::okay;
    }
    if (!rx_writable(reg)) {
        uint32_t ignored;
        return read_rx(socket_address(), s, reg, take_snapshot(), ignored) == status::okay
                   ? status::slverr
                   : status::decerr;
    }
    if (engine.status() & regs::status::running)
        return status::slverr; // the descriptor is latched while streaming
    if (reg == regs::rx::start_time_lo || reg == regs::rx::start_time_hi)
        d_run_started[s] = false;
    d_rx_words[s][reg / 4] = value;
    return status::okay;
}

status register_file::write_emu(unsigned s, uint32_t reg, uint32_t value)
{
    if (!emu_register_exists(reg))
        return status::decerr;
    if (reg == regs::emu::fault_log || reg == regs::emu::fault_log_level)
        return status::slverr;
    if (reg == regs::emu::signal && value > regs::signal::extremes)
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
    const size_t n = d_engines.size();
    if (address >= regs::rx_base && address < regs::rx_base + n * regs::rx_stride) {
        const unsigned s = (address - regs::rx_base) / regs::rx_stride;
        const uint32_t reg = (address - regs::rx_base) % regs::rx_stride;
        return owned_by_other(s, client) && (is_write || rx_secret(reg));
    }
    if (address >= regs::emu_base && address < regs::emu_base + n * regs::emu_stride)
        return owned_by_other((address - regs::emu_base) / regs::emu_stride, client);
    if (is_write && address >= regs::metadata_base &&
        address < regs::metadata_base + regs::metadata_block_bytes) {
        // One metadata destination per device: only an owner may redirect it, unless
        // nobody owns anything (a device without owners behaves as before).
        bool any_owned = false;
        for (const owner& o : d_owners) {
            if (o.owned && o.client == client)
                return false;
            any_owned = any_owned || o.owned;
        }
        return any_owned;
    }
    return false;
}

bool register_file::touches_owner_registers(uint32_t address,
                                            size_t count,
                                            bool fixed) const
{
    if (!d_ownership)
        return false;
    for (size_t i = 0; i < count; i++) {
        const uint32_t a = fixed ? address : address + 4 * static_cast<uint32_t>(i);
        if (a >= regs::rx_base &&
            a < regs::rx_base + d_engines.size() * regs::rx_stride &&
            is_owner_register((a - regs::rx_base) % regs::rx_stride))
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
    const block& w = d_rx_words[s];
    const block& e = d_emu_words[s];
    auto at = [&w](uint32_t reg) { return w[reg / 4]; };
    rx_descriptor d;
    d.destination = socket_address(at(regs::rx::dest_ipv4),
                                   static_cast<uint16_t>(at(regs::rx::dest_udp_port)));
    d.dest_qpn = at(regs::rx::dest_qpn);
    d.start_psn = at(regs::rx::start_psn);
    d.rkey = at(regs::rx::rkey);
    d.va = regs::join_words(at(regs::rx::va_lo), at(regs::rx::va_hi));
    d.ring_bytes =
        regs::join_words(at(regs::rx::ring_bytes_lo), at(regs::rx::ring_bytes_hi));
    d.payload_bytes = at(regs::rx::payload_bytes);
    d.path_mtu = at(regs::rx::path_mtu);
    d.notify_interval = at(regs::rx::notify_interval);
    d.rate_num = at(regs::rx::rate_num);
    d.rate_den = at(regs::rx::rate_den);
    d.transport = at(regs::rx::transport);
    d.retx_window_bytes = at(regs::rx::retx_window_bytes);
    d.start_time_ns =
        regs::join_words(at(regs::rx::start_time_lo), at(regs::rx::start_time_hi));
    d.num_samples =
        regs::join_words(at(regs::rx::num_samples_lo), at(regs::rx::num_samples_hi));
    d.signal.format = static_cast<sample_format>(at(regs::rx::format));
    d.signal.kind = static_cast<test_signal_kind>(e[regs::emu::signal / 4]);
    d.signal.freq_hz = static_cast<int32_t>(e[regs::emu::tone_freq_hz / 4]);
    std::memcpy(&d.signal.amplitude, &e[regs::emu::amplitude / 4], 4);
    d.signal.seed = e[regs::emu::seed / 4];
    d.signal.sample_rate = double(d.rate_num) / double(d.rate_den ? d.rate_den : 1);
    d.fifo_us = d_identity.fifo_us;
    impairment_config& imp = d.impairments;
    imp.seed = e[regs::emu::fault_seed / 4];
    imp.loss_ppm = e[regs::emu::loss_ppm / 4];
    imp.loss_burst = e[regs::emu::loss_burst / 4];
    imp.duplicate_ppm = e[regs::emu::duplicate_ppm / 4];
    imp.corrupt_ppm = e[regs::emu::corrupt_ppm / 4];
    imp.delay_ppm = e[regs::emu::delay_ppm / 4];
    imp.delay_messages = e[regs::emu::delay_messages / 4];
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
