/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "destination_table.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

namespace ec = regs::error_code;
namespace cause = regs::epoch::cause_code;
namespace bits = regs::dst::state_bits;

// BTH + RETH + ImmDt + ICRC and the wire's headroom: a packet of the path MTU.
constexpr size_t frame_overhead = wire::headroom + roce::bth_bytes + roce::reth_bytes +
                                  roce::immdt_bytes + roce::icrc_bytes;

// Destination d of \p d: destination 0's address is the RX block's.
regs::destination_values destination(const rx_descriptor& d, unsigned i)
{
    regs::destination_values v = d.destinations[i];
    if (i == 0) {
        v.destination = d.destination;
        v.qpn = d.dest_qpn;
        v.start_psn = d.start_psn;
        v.rkey = d.rkey;
        v.va = d.va;
        v.ring_bytes = d.ring_bytes;
    }
    return v;
}

bool used(const rx_descriptor& d, unsigned i) { return i == 0 || d.destinations[i].qpn; }

} // namespace

uint32_t destination_table::validate(const rx_descriptor& d, const link_set* links)
{
    const unsigned num_links = links ? static_cast<unsigned>(links->size()) : 1;
    if (d.link_mask == 0 || (num_links < 32 && (d.link_mask >> num_links)))
        return ec::bad_link;
    for (unsigned i = 1; i < max_destinations; i++) {
        const regs::destination_values v = d.destinations[i];
        if (!v.qpn)
            continue;
        if (v.destination.ip() == 0 || v.destination.port() == 0)
            return ec::bad_destination;
        if (v.ring_bytes == 0 || v.ring_bytes % d.payload_bytes ||
            v.va + v.ring_bytes < v.va)
            return ec::bad_ring;
    }
    // Weights per share (one share: the stream's), and whether a used destination lies
    // outside every share.
    std::array<unsigned, regs::max_shares> weights{}, used_in{};
    unsigned count = 0;
    bool outside = false;
    for (unsigned i = 0; i < max_destinations; i++) {
        if (!used(d, i))
            continue;
        const regs::destination_values v = d.destinations[i];
        if (v.link >= num_links || !(d.link_mask & (1u << v.link)))
            return ec::bad_link;
        if (links && d.path_mtu + frame_overhead > links->out(v.link).mtu())
            return ec::bad_mtu;
        count++;
        const uint32_t h = regs::share_of_destination(i, d.shares);
        if (h == regs::share_none) {
            outside = true;
            continue;
        }
        weights[h] += v.weight;
        used_in[h]++;
    }
    if (count > 1 || d.shares > 1) {
        // One share may continue a stream (CAP_LINKS_CONTINUE): from a window boundary,
        // where its epoch 0 begins. The hosts of several follow one run from 0.
        const bool first_ok = d.shares > 1 ? d.first_message == 0
                                           : d.notify_interval == 0 ||
                                                 d.first_message % d.notify_interval == 0;
        // RC over several destinations (CAP_RC_LINKS): one host's, each destination
        // its own requester (rc_destinations); the hosts of several shares stream UC.
        const bool transport_ok =
            d.transport == regs::transport_type::uc ||
            (d.transport == regs::transport_type::rc && d.shares == 1);
        if (!transport_ok || !first_ok || d.queued || outside)
            return ec::bad_destinations;
        // One share: its used destinations' weights 1..1024. Several: at most 1024
        // each; a share whose weights add up to 0 is not ready (13, below).
        for (unsigned h = 0; h < d.shares; h++)
            if (used_in[h] && (weights[h] > regs::link_schedule::max_period ||
                               (weights[h] == 0 && d.shares == 1)))
                return ec::bad_destinations;
    }
    if (d.shares > 1) {
        const uint32_t ready = ready_shares(d, links);
        for (unsigned h = 0; h < d.shares; h++)
            if (!(ready & (1u << h)))
                return ec::share_not_ready;
        return ec::none;
    }
    if (!links)
        return ec::none;
    for (unsigned i = 0; i < max_destinations; i++) {
        const regs::destination_values v = d.destinations[i];
        if (used(d, i) && (count == 1 || v.weight) && links->up(v.link) &&
            links->control(v.link) == regs::link_control::up)
            return ec::none;
    }
    return ec::bad_link; // no destination may be active
}

uint32_t destination_table::ready_shares(const rx_descriptor& d, const link_set* links)
{
    uint32_t ready = 0;
    for (unsigned i = 0; i < max_destinations; i++) {
        const regs::destination_values v = destination(d, i);
        const uint32_t h = regs::share_of_destination(i, d.shares);
        if (h == regs::share_none || !v.qpn || !v.weight)
            continue;
        if (links && (v.link >= links->size() || !links->up(v.link) ||
                      links->control(v.link) != regs::link_control::up))
            continue;
        ready |= 1u << h;
    }
    return ready;
}

destination_table::destination_table(const rx_descriptor& d,
                                     const link_set* links,
                                     wire& fallback)
    : d_links(links),
      d_notify(d.notify_interval),
      d_payload(d.payload_bytes),
      d_first(d.first_message),
      d_layout(d.shares, d.share_block)
{
    for (unsigned i = 0; i < max_destinations; i++) {
        d_dest[i] = destination(d, i);
        d_used[i] = used(d, i);
        d_used_count += d_used[i];
        d_share[i] = static_cast<uint8_t>(regs::share_of_destination(i, d.shares));
        d_wire[i] = links ? &links->out(d_dest[i].link) : &fallback;
        d_next_psn[i] = d_dest[i].start_psn & 0xFFFFFF;
        d_slots[i] = std::max<uint64_t>(1, d_dest[i].ring_bytes / d.payload_bytes);
        d_weight[i] = d_used[i] ? d_dest[i].weight : 0;
        d_messages[i] = 0;
        d_state[i] = 0;
    }
    d_routing = d_used_count > 1 || d.shares > 1;
    // Each share's ring: its first used destination's (share 0: destination 0's).
    for (unsigned i = max_destinations; i-- > 0;)
        if (d_used[i] && d_share[i] < regs::max_shares)
            d_share_ring[d_share[i]] = d_slots[i];
    if (d_links) {
        d_generation_seen = d_links->generation();
        for (unsigned n = 0; n < d_links->size() && n < d_control_seen.size(); n++) {
            d_control_seen[n] = d_links->control(n);
            d_up_seen[n] = d_links->up(n);
            d_link_rejoins_seen[n] = d_links->rejoins(n);
        }
        for (unsigned i = 0; i < max_destinations; i++) {
            d_device_down[i] = d_used[i] && !d_links->up(d_dest[i].link);
            d_rejoins_seen[i] = d_links->rejoins(d_dest[i].link);
        }
    }
    for (regs::epoch_values& e : d_entries)
        e = regs::epoch_values{};
    weights_type w = wanted();
    if (!d_routing)
        w = { static_cast<uint16_t>(std::max<uint32_t>(1, d_dest[0].weight)) };
    // Epoch 0 at the run's first message: a continued stream's schedule starts there.
    begin_epoch(d_first, w);
    record_epoch(d_first, w, cause::start, 0);
    d_scheduled.store(d_first, std::memory_order_release);
    publish_states();
}

destination_table::weights_type destination_table::of_share(const weights_type& w,
                                                            unsigned h) const
{
    weights_type out{};
    for (unsigned i = 0; i < max_destinations; i++)
        out[i] = d_share[i] == h ? w[i] : 0;
    return out;
}

bool destination_table::every_share_has(const weights_type& w, bool used_only) const
{
    // Never a share without a destination, nor one beyond one period of the pattern.
    for (unsigned h = 0; h < d_layout.shares(); h++) {
        unsigned total = 0;
        for (unsigned i = 0; i < max_destinations; i++)
            total += d_share[i] == h && (!used_only || d_used[i]) ? w[i] : 0;
        if (total == 0 || total > regs::link_schedule::max_period)
            return false;
    }
    return true;
}

void destination_table::begin_epoch(uint64_t first, const weights_type& w)
{
    // Every share from the same local index on: none has scheduled it yet. One
    // destination routes nothing: its epoch 0 begins at any first message.
    for (unsigned h = 0; h < d_layout.shares(); h++)
        d_schedule[h].begin_epoch(first, of_share(w, h), d_routing ? d_notify : 0);
}

destination_table::weights_type destination_table::wanted() const
{
    // Active: used, its link neither cut (latched) nor declared down, a weight.
    weights_type w{};
    for (unsigned i = 0; i < max_destinations; i++) {
        if (!d_used[i] || d_device_down[i])
            continue;
        if (d_links && d_links->control(d_dest[i].link) != regs::link_control::up)
            continue;
        w[i] = static_cast<uint16_t>(std::min<uint32_t>(d_weight[i].load(), 0xFFFF));
    }
    return w;
}

void destination_table::look_at_links()
{
    // Which link changed, and how: the latest change names the epoch's cause.
    const uint64_t g = d_links->generation();
    if (g == d_generation_seen)
        return;
    d_generation_seen = g;
    for (unsigned n = 0; n < d_links->size() && n < d_control_seen.size(); n++) {
        const bool up = d_links->up(n);
        const uint32_t control = d_links->control(n);
        const uint64_t rejoins = d_links->rejoins(n);
        if (d_up_seen[n] && !up) {
            d_pending_cause = cause::link_down;
            d_pending_link = n;
        } else if (control != d_control_seen[n] && control == regs::link_control::down) {
            d_pending_cause = cause::host_down;
            d_pending_link = n;
        } else if (rejoins != d_link_rejoins_seen[n]) {
            d_pending_cause = cause::link_up;
            d_pending_link = n;
        }
        d_up_seen[n] = up;
        d_control_seen[n] = control;
        d_link_rejoins_seen[n] = rejoins;
    }
    // A cut latches until the host asks the link back (LINK_CONTROL = 1) while up.
    for (unsigned i = 0; i < max_destinations; i++) {
        if (!d_used[i])
            continue;
        const unsigned n = d_dest[i].link;
        if (!d_links->up(n)) {
            if (!d_device_down[i])
                d_rejoins_seen[i] = d_links->rejoins(n);
            d_device_down[i] = true;
        } else if (d_device_down[i] && d_links->rejoins(n) != d_rejoins_seen[i]) {
            d_device_down[i] = false;
        }
    }
    publish_states();
}

void destination_table::publish_states()
{
    for (unsigned i = 0; i < max_destinations; i++) {
        if (!d_used[i]) {
            d_state[i] = 0;
            continue;
        }
        uint32_t s = bits::used;
        s |= d_current[i] ? bits::active : 0;
        s |= d_device_down[i] ? bits::device_down : 0;
        if (d_links && d_links->control(d_dest[i].link) == regs::link_control::down)
            s |= bits::host_down;
        d_state[i] = s;
    }
}

void destination_table::maybe_begin_epoch(uint64_t message)
{
    if (d_links)
        look_at_links();
    const uint64_t writes = d_weight_writes.load(std::memory_order_acquire);
    if (writes != d_weights_seen) {
        d_weights_seen = writes;
        d_pending_cause = cause::weights;
        d_pending_link = 0;
    }
    if (!d_routing)
        return; // one destination: epoch 0 only
    const weights_type w = wanted();
    if (w == d_current)
        return;
    if (!every_share_has(w, false))
        return; // never without a destination: held until one may be active again
    // Epoch n (n >= kept) drops epoch n - kept: only once every share has scheduled a
    // ring (its first used destination's) since that one began, and all its messages
    // of it: no host needs an epoch dropped here, nor does a share that lags share 0
    // (by up to a block). Share 0 is at `message`.
    const uint32_t n = d_epoch_count.load();
    if (n >= kept_epochs) {
        const uint64_t dropped_first = d_epoch_first[n % kept_epochs];
        const uint64_t oldest_kept = d_epoch_first[(n + 1) % kept_epochs];
        for (unsigned h = 0; h < d_layout.shares(); h++) {
            const uint64_t next = h == 0 ? message : d_local_next[h];
            if (next < dropped_first + d_share_ring[h] || next < oldest_kept)
                return;
        }
    }
    begin_epoch(message, w);
    record_epoch(message, w, d_pending_cause, d_pending_link);
    publish_states();
}

void destination_table::record_epoch(uint64_t first,
                                     const std::array<uint16_t, max_destinations>& w,
                                     uint32_t cause_code,
                                     uint32_t link)
{
    const uint32_t k = d_epoch_count.load();
    d_current = w;
    d_epoch_first[k % kept_epochs] = first;
    regs::epoch_values e;
    e.first = first;
    e.number = k;
    e.cause = cause_code;
    e.link = link;
    e.weights = w;
    {
        std::lock_guard<std::mutex> lock(d_epoch_mutex);
        d_entries[k % kept_epochs] = e;
    }
    d_epoch_count.store(k + 1, std::memory_order_release);
}

message_route destination_table::route(uint64_t message, size_t packets, uint64_t end)
{
    // Shares see local indices; share 0 reaches every local index first, so its window
    // boundaries are where changes take effect: every window's immediates then follow
    // one pattern in every share (docs/register-map.md, "Epochs and failover").
    const unsigned h = d_layout.share_of(message);
    const uint64_t i = d_layout.local_index(message);
    if (h == 0 && (d_notify == 0 || i % d_notify == 0))
        maybe_begin_epoch(i);
    uint8_t d = d_schedule[h].destination_of(i);
    if (d >= max_destinations) // cannot happen: every epoch has a destination
        d = 0;
    const regs::destination_values& v = d_dest[d];
    message_route r;
    r.destination = d;
    r.dest_qpn = v.qpn;
    r.first_psn = d_next_psn[d];
    r.rkey = v.rkey;
    r.va = v.va + (i % d_slots[d]) * d_payload;
    r.ring_end = v.va + v.ring_bytes;
    // A finite burst ends, for share h, after its own share of the burst's messages.
    const uint64_t local_end = end ? d_layout.local_count(h, end) : 0;
    r.immediate = d_schedule[h].carries_immediate(i, d_notify, local_end);
    r.imm = static_cast<uint32_t>(i);
    d_next_psn[d] = (d_next_psn[d] + static_cast<uint32_t>(packets)) & 0xFFFFFF;
    d_messages[d].fetch_add(1, std::memory_order_relaxed);
    d_local_next[h] = i + 1;
    if (h == 0)
        d_scheduled.store(i + 1, std::memory_order_release);
    return r;
}

void destination_table::poll(uint64_t scheduled)
{
    if (d_routing)
        return; // route() counts and looks
    if (d_links)
        look_at_links();
    d_messages[0].store(scheduled, std::memory_order_relaxed);
    d_scheduled.store(d_first + scheduled, std::memory_order_release);
}

regs::destination_counters destination_table::counters(unsigned d) const
{
    regs::destination_counters c;
    c.messages = d_messages.at(d).load(std::memory_order_relaxed);
    c.state = d_state.at(d).load(std::memory_order_relaxed);
    return c;
}

regs::epoch_values destination_table::epoch_entry(unsigned j) const
{
    std::lock_guard<std::mutex> lock(d_epoch_mutex);
    return d_entries.at(j);
}

bool destination_table::set_weight(unsigned d, uint32_t weight)
{
    if (d >= max_destinations || !d_used[d] || weight > regs::dst::max_weight)
        return false;
    weights_type w{};
    for (unsigned i = 0; i < max_destinations; i++)
        w[i] = static_cast<uint16_t>(std::min<uint32_t>(d_weight[i].load(), 0xFFFF));
    w[d] = static_cast<uint16_t>(weight);
    if (d_routing && !every_share_has(w, true))
        return false;
    d_weight[d].store(weight);
    d_weight_writes.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

bool destination_table::set_weights(const weights_type& weights)
{
    if (d_routing && !every_share_has(weights, true))
        return false;
    for (unsigned i = 0; i < max_destinations; i++)
        if (d_used[i])
            d_weight[i].store(weights[i]);
    d_weight_writes.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

} // namespace emu
} // namespace rdma
} // namespace gr
