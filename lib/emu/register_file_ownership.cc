/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's stream ownership (docs/register-map.md, "Ownership"): claims,
// leases, and which client may read or write what.

#include "register_file.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using axioe::status;
using regs::block;

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

} // namespace

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
        const bool running = slot_running(s);
        d_logger->warn("{}: owner {} silent for {} ms, beyond its lease of {} "
                       "ms: stream {}freed",
                       slot_name(s),
                       o.client.to_string(),
                       silent_ns / 1000000,
                       o.lease_ms,
                       running ? "stopped and " : "");
        free_stream(s, regs::stop_cause::how::lapsed);
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
    // A destination of an owned share is the share owner's instead.
    if (a.where == block::rx_destination)
        return owned_by_other(destination_slot(a.index / regs::rx_dest_per_stream,
                                               a.index % regs::rx_dest_per_stream),
                              client) &&
               (is_write || owner_only(a));
    if (a.where == block::rx || a.where == block::emulator || a.where == block::tx ||
        a.where == block::tx_emulator || a.where == block::tx_burst_queue ||
        a.where == block::rx_share)
        return owned_by_other(owner_slot(a), client) && (is_write || owner_only(a));
    if (a.where == block::rf || a.where == block::burst_queue)
        return is_write && owned_by_other(a.index, client);
    // The controller: stream s's RX_RATE_LIMIT is its owner's to write.
    if (a.where == block::ctrl && a.offset >= regs::ctrl::rate_limit &&
        a.offset < regs::ctrl::rate) {
        const unsigned s = (a.offset - regs::ctrl::rate_limit) / 4;
        return is_write && s < d_engines.size() && owned_by_other(s, client);
    }
    // And TX stream t's TX_RATE_LIMIT its owner's.
    if (a.where == block::ctrl && a.offset >= regs::ctrl::tx_rate_limit &&
        a.offset < regs::ctrl::tx_rate) {
        const unsigned t = (a.offset - regs::ctrl::tx_rate_limit) / 4;
        return is_write && t < d_tx.size() &&
               owned_by_other(unsigned(d_engines.size()) + t, client);
    }
    // What acts on every stream: the metadata destination, the device time and its
    // references, the scene; map 1.5: what the host wants of a link, the emulated
    // links.
    const bool device_wide =
        a.where == block::metadata || a.where == block::scene ||
        a.where == block::emu_link || a.where == block::ctrl ||
        (a.where == block::link && a.offset == regs::link::control) ||
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
        // TX streams have the RX block's ownership registers, at the same offsets; a
        // share has them 0x70 lower.
        if (a.reg && (a.where == block::rx || a.where == block::tx) &&
            is_owner_register(a.offset))
            return true;
        if (a.reg && a.where == block::rx_share &&
            is_owner_register(a.offset + regs::share::rx_owner_offset))
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
    const regs::decoded_address first = decode(address);
    const unsigned s = owner_slot(first);
    const bool share = first.where == block::rx_share;
    const uint32_t reg = first.offset + (share ? regs::share::rx_owner_offset : 0);
    const bool incrementing = !fixed || count == 1;
    if (incrementing && reg == regs::rx::owner_token_lo && (count == 2 || count == 3)) {
        const uint64_t token = regs::join_words(words[0], words[1]);
        if (token == 0 || (count == 3 && words[2] != regs::owner_command::take_over))
            return status::slverr;
        // A share the stream does not have (h >= RX_SHARES) cannot be claimed.
        if (share &&
            first.index % regs::max_shares >= shares_of(first.index / regs::max_shares))
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
        d_logger->warn("{}: {} takes it over from {}{}",
                       slot_name(s),
                       client.to_string(),
                       o.client.to_string(),
                       slot_running(s) ? ", whose run is stopped" : "");
        // the previous owner's run writes into the previous owner's ring
        free_stream(s, regs::stop_cause::how::taken_over);
    } else if (!o.owned) {
        d_logger->debug("{}: claimed by {}", slot_name(s), client.to_string());
    } else if (o.client != client) {
        d_logger->info("{}: its owner's token moves it from {} to {}",
                       slot_name(s),
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
    d_logger->debug("{}: released by {}", slot_name(s), client.to_string());
    free_stream(s, regs::stop_cause::how::released);
    return status::okay;
}

unsigned register_file::owner_slot(const regs::decoded_address& a) const
{
    const bool tx = a.where == block::tx || a.where == block::tx_emulator ||
                    a.where == block::tx_burst_queue;
    if (a.where == block::rx_destination) // destination d of stream s: 8 s + d
        return a.index / regs::rx_dest_per_stream;
    if (a.where == block::rx_share) // share h of stream s: 8 s + h
        return share_slot(a.index / regs::max_shares, a.index % regs::max_shares);
    return tx ? static_cast<unsigned>(d_engines.size()) + a.index : a.index;
}

bool register_file::slot_running(unsigned s) const
{
    if (is_share_slot(s)) // a share runs with its stream
        return slot_running((s - share_slot(0, 0)) / regs::max_shares);
    const uint32_t st = s < d_engines.size() ? d_engines[s]->status()
                                             : d_tx[s - d_engines.size()]->status();
    return st & regs::status::running;
}

std::string register_file::slot_name(unsigned s) const
{
    if (is_share_slot(s)) {
        const unsigned at = s - share_slot(0, 0);
        return "share " + std::to_string(at % regs::max_shares) + " of RX stream " +
               std::to_string(at / regs::max_shares);
    }
    return s < d_engines.size() ? "RX stream " + std::to_string(s)
                                : "TX stream " + std::to_string(s - d_engines.size());
}

void register_file::free_stream(unsigned s, uint32_t how)
{
    if (is_share_slot(s)) {
        free_share(s, how);
        return;
    }
    if (s >= d_engines.size()) {
        const unsigned t = s - static_cast<unsigned>(d_engines.size());
        if (d_tx[t]->status() & regs::status::running)
            d_tx[t]->stop();
        d_owners[s] = owner{};
        reset_tx_descriptor(t);
        if (d_controller) { // nor its READ rate limit
            d_controller->tx_stream_stopped(t);
            d_controller->set_tx_rate_limit(t, 0);
        }
        return;
    }
    if (d_engines[s]->status() & regs::status::running)
        d_engines[s]->stop(regs::stop_cause::make(regs::stop_cause::owner_left, 0, how));
    d_owners[s] = owner{}; // the lease too is back at its reset value
    // The next owner must not read this one's QPN, PSN, rkey and VA, nor inherit its
    // rate limit. A share another host owns keeps its destinations, and the layout.
    const kept_shares kept = keep_owned_shares(s);
    reset_descriptor(s);
    restore_owned_shares(s, kept);
    if (d_controller) {
        d_controller->stream_stopped(s);
        d_controller->set_rate_limit(s, 0);
    }
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
    destinations_of(s, d);
    d.shares = shares_of(s);
    d.share_block =
        shares_present() ? w[regs::rx::share_block / 4] : regs::default_share_block;
    return d;
}

} // namespace emu
} // namespace rdma
} // namespace gr
