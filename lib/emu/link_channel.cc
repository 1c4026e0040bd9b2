/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/hash.h"
#include "../util/thread_role.h"
#include "device_clock.h"
#include "link_channel.h"
#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr size_t slot_bytes = (wire::headroom + link_channel::max_held_bytes + 63) & ~63;
constexpr size_t ring_entries = 2 * link_channel::max_held_frames; // frames, tombstones
constexpr size_t max_release_batch = 64;
// A network that takes nothing for this long has failed: what is left is dropped.
constexpr int max_send_attempts = 1000;
constexpr auto send_backoff = std::chrono::microseconds(20);
// IPv4 and UDP headers: what a rate counts on top of the UDP payload.
constexpr uint64_t ip_udp_bytes = 28;

uint32_t qpn_of(const outgoing_packet& p)
{
    if (!p.roce || p.length < roce::bth_bytes)
        return 0;
    const uint8_t* b = p.udp_payload;
    return (uint32_t(b[5]) << 16) | (uint32_t(b[6]) << 8) | b[7];
}

} // namespace

link_channel::link_channel(wire& network, unsigned index)
    : d_network(network), d_index(index)
{
}

link_channel::~link_channel()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_wake.notify_all();
    if (d_thread.joinable())
        d_thread.join();
}

void link_channel::configure(const regs::emu_link_values& values)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (values.seed != d_config.seed)
        d_frame = 0;
    d_config = values;
    d_config.delay_us = std::min(d_config.delay_us, regs::emu_link::max_delay_us);
    d_config.reorder_us = std::min(d_config.reorder_us, regs::emu_link::max_delay_us);
    d_config.queue_us = std::min(d_config.queue_us, regs::emu_link::max_queue_us);
    d_config.loss_ppm = std::min<uint32_t>(d_config.loss_ppm, 1000000);
    d_down.store(d_config.down != 0, std::memory_order_release);
    // The held frames' storage (some 9 MB) and the release thread come now, on the
    // register file's thread: made by the first held frame, they stalled the engine
    // that sent it for tens of milliseconds, and it then caught up in a burst.
    if (d_config.delay_us || d_config.reorder_us || d_config.rate)
        ensure_storage();
    d_passthrough.store(!impaired_locked(), std::memory_order_release);
    d_inbound.configure(d_config.rate, int64_t(d_config.queue_us) * 1000);
    d_policing.store(d_config.rate != 0, std::memory_order_release);
    d_wake.notify_all(); // a cut drops what is held, now
}

size_t link_channel::receive(datagram* slots, size_t count)
{
    if (!d_policing.load(std::memory_order_acquire))
        return d_network.receive(slots, count);
    // Those the rate drops are swapped behind the ones kept (the caller owns the
    // slots' memory, whichever slot points at it), and the network read on, so that a
    // caller that stops at a short batch is not stopped by the drops.
    size_t kept = 0;
    for (;;) {
        const size_t room = count - kept;
        const size_t n = d_network.receive(slots + kept, room);
        const int64_t now = monotonic_ns();
        const size_t end = kept + n;
        std::lock_guard<std::mutex> lock(d_mutex);
        for (size_t i = kept; i < end; i++) {
            datagram& d = slots[i];
            if (d_inbound.admit(now, d.length + ip_udp_bytes)) {
                std::swap(slots[kept], d);
                kept++;
            } else {
                d_counters.frames_dropped++;
            }
        }
        if (n < room || kept == count)
            return kept;
    }
}

regs::emu_link_values link_channel::configuration() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_config;
}

regs::emu_link_counters link_channel::counters() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_counters;
}

size_t link_channel::held() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_count;
}

bool link_channel::lose(uint64_t frame) const
{
    if (d_config.loss_ppm == 0)
        return false;
    return splitmix64((uint64_t(d_config.seed) << 32) ^ frame) % 1000000u <
           d_config.loss_ppm;
}

int64_t link_channel::jitter_ns(uint64_t frame) const
{
    if (d_config.reorder_us == 0)
        return 0;
    const uint64_t span = uint64_t(d_config.reorder_us) * 1000 + 1;
    return static_cast<int64_t>(
        splitmix64(splitmix64((uint64_t(d_config.seed) << 32) | 'R') ^ frame) % span);
}

void link_channel::account(const outgoing_packet& p, uint32_t qpn, bool dropped)
{
    // In the link's order: a message is cut when any of its frames is; its samples
    // count once, at its last frame.
    if (dropped)
        d_counters.frames_dropped++;
    else
        d_counters.frames_passed++;
    if (!p.roce) { // a UDP sample datagram is a message of its own
        if (dropped)
            d_counters.samples_dropped += p.message_samples;
        return;
    }
    cut_flag* flag = nullptr;
    for (cut_flag& f : d_cut)
        if (f.used && f.qpn == qpn)
            flag = &f;
    if (!flag && !dropped && p.ends_message)
        return; // whole: nothing to remember
    if (!flag) {
        for (cut_flag& f : d_cut)
            if (!f.used)
                flag = &f;
        if (!flag) // more QPs than flags: one message's state may be forgotten
            flag = &d_cut[qpn % d_cut.size()];
        *flag = cut_flag{ qpn, false, true };
    }
    flag->cut = flag->cut || dropped;
    if (p.ends_message) {
        if (flag->cut)
            d_counters.samples_dropped += p.message_samples;
        flag->used = false;
    }
}

size_t
link_channel::forward(outgoing_packet* packets, size_t count, const socket_address& to)
{
    // To the network, whole: a full transmit queue is waited out (briefly), as the
    // engine would; what it never takes is lost on the link.
    size_t sent = 0;
    for (int attempt = 0; sent < count && attempt < max_send_attempts; attempt++) {
        const size_t n = d_network.send(packets + sent, count - sent, to);
        sent += n;
        if (sent < count && n == 0)
            std::this_thread::sleep_for(send_backoff);
    }
    return sent;
}

void link_channel::ensure_storage()
{
    if (!d_slot_memory.empty())
        return;
    d_slot_memory.assign(max_held_frames * slot_bytes, 0);
    d_free_slots.clear();
    for (size_t i = max_held_frames; i-- > 0;)
        d_free_slots.push_back(i);
    d_ring.assign(ring_entries, entry{});
    d_thread = std::thread([this] { release_loop(); });
}

void link_channel::drop_in_order(const outgoing_packet& p)
{
    // Behind held frames a drop waits its turn (a tombstone), so that the messages
    // are told cut in the link's order.
    if ((d_count == 0 && d_releasing == 0) || d_count == d_ring.size()) {
        account(p, qpn_of(p), true);
        return;
    }
    entry& e = d_ring[(d_head + d_count) % d_ring.size()];
    e = entry{};
    e.packet = p;
    e.packet.udp_payload = nullptr;
    e.qpn = qpn_of(p);
    e.dropped = true;
    d_count++;
}

void link_channel::hold(const outgoing_packet& p, const socket_address& to, int64_t now)
{
    // When the rate lets it go, then the delay and its random extra, never before the
    // link's previous frame.
    int64_t depart = now;
    if (d_config.rate) {
        depart = std::max(now, d_rate_free_ns);
        if (depart - now > int64_t(d_config.queue_us) * 1000) {
            drop_in_order(p); // the queue is full: a switch drops it
            return;
        }
        d_rate_free_ns = depart + static_cast<int64_t>((p.length + ip_udp_bytes) *
                                                       1000000000ull / d_config.rate);
    }
    if (d_free_slots.empty() || d_count == d_ring.size() || p.length > max_held_bytes) {
        drop_in_order(p);
        return;
    }
    const int64_t due = std::max(
        depart + int64_t(d_config.delay_us) * 1000 + jitter_ns(d_frame), d_last_due_ns);
    const size_t slot = d_free_slots.back();
    d_free_slots.pop_back();
    uint8_t* base = d_slot_memory.data() + slot * slot_bytes;
    std::memcpy(base, p.udp_payload - wire::headroom, wire::headroom + p.length);
    entry& e = d_ring[(d_head + d_count) % d_ring.size()];
    e.due_ns = due;
    e.to = to;
    e.packet = p;
    e.packet.udp_payload = base + wire::headroom;
    e.qpn = qpn_of(p);
    e.slot = slot;
    e.dropped = false;
    d_count++;
    d_last_due_ns = due;
    d_counters.frames_delayed++;
}

size_t link_channel::send(outgoing_packet* batch, size_t count, const socket_address& to)
{
    if (d_passthrough.load(std::memory_order_acquire)) {
        // Unimpaired: the network's own answer (a full queue is offered again).
        const size_t sent = d_network.send(batch, count, to);
        std::lock_guard<std::mutex> lock(d_mutex);
        for (size_t i = 0; i < sent; i++)
            account(batch[i], qpn_of(batch[i]), false);
        return sent;
    }
    std::unique_lock<std::mutex> lock(d_mutex);
    const int64_t now = monotonic_ns();
    const bool holds = d_config.delay_us || d_config.reorder_us || d_config.rate;
    if (holds)
        ensure_storage();
    // Frames that go on now, in order: only while nothing is held before them.
    outgoing_packet direct[max_release_batch];
    size_t pending = 0;
    auto flush = [&] {
        if (!pending)
            return;
        lock.unlock();
        const size_t sent = forward(direct, pending, to);
        lock.lock();
        for (size_t i = 0; i < pending; i++)
            account(direct[i], qpn_of(direct[i]), i >= sent);
        pending = 0;
    };
    for (size_t i = 0; i < count; i++) {
        const outgoing_packet& p = batch[i];
        const bool lost = d_config.down || lose(d_frame);
        if (holds || d_count > 0 || d_releasing > 0) {
            flush();
            if (lost)
                drop_in_order(p);
            else
                hold(p, to, now);
        } else if (lost) {
            flush();
            account(p, qpn_of(p), true);
        } else {
            direct[pending++] = p;
            if (pending == max_release_batch)
                flush();
        }
        d_frame++;
    }
    flush();
    d_passthrough.store(!impaired_locked(), std::memory_order_release);
    lock.unlock();
    d_wake.notify_all();
    return count; // the device sent them all; the network decides what arrives
}

void link_channel::release_loop()
{
    const std::string name = "emu-link" + std::to_string(d_index);
    thread_role_scope role(thread_role::device, name.c_str());
    std::unique_lock<std::mutex> lock(d_mutex);
    outgoing_packet out[max_release_batch];
    socket_address to[max_release_batch];
    uint32_t qpn[max_release_batch];
    size_t slots[max_release_batch];
    while (!d_stop) {
        if (d_count == 0) {
            d_passthrough.store(!impaired_locked(), std::memory_order_release);
            d_wake.wait(lock);
            continue;
        }
        const int64_t now = monotonic_ns();
        {
            const entry& head = d_ring[d_head];
            if (!head.dropped && head.due_ns > now && !d_config.down) {
                d_wake.wait_for(lock, std::chrono::nanoseconds(head.due_ns - now));
                continue;
            }
        }
        // The frames due now, in order; a tombstone is told in its turn, and a cut
        // cable drops what it holds.
        size_t n = 0;
        while (d_count && n < max_release_batch) {
            entry& e = d_ring[d_head];
            const bool drop = e.dropped || d_config.down;
            if (!drop && e.due_ns > now)
                break;
            if (drop && n) // what is collected goes first
                break;
            if (drop) {
                account(e.packet, e.qpn, true);
                if (!e.dropped)
                    d_free_slots.push_back(e.slot);
            } else {
                out[n] = e.packet;
                to[n] = e.to;
                qpn[n] = e.qpn;
                slots[n] = e.slot;
                n++;
            }
            d_head = (d_head + 1) % d_ring.size();
            d_count--;
        }
        if (!n)
            continue;
        d_releasing = n; // frames sent now wait behind these
        lock.unlock();
        bool sent[max_release_batch] = {};
        for (size_t i = 0; i < n;) {
            size_t run = 1;
            while (i + run < n && to[i + run] == to[i])
                run++;
            const size_t done = forward(out + i, run, to[i]);
            for (size_t j = 0; j < run; j++)
                sent[i + j] = j < done;
            i += run;
        }
        lock.lock();
        for (size_t i = 0; i < n; i++) {
            account(out[i], qpn[i], !sent[i]);
            d_free_slots.push_back(slots[i]);
        }
        d_releasing = 0;
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
