/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// An RX engine's batches: the messages that are due, built (or dropped, held,
// duplicated) into packets, sent to their destinations' links, and counted. The run's
// pacing is in rx_engine.cc.

#include "../meta/metadata_packet.h"
#include "rx_engine.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {

// Batch fate of the extra copy of a duplicated message: counted, carries no samples.
constexpr uint32_t duplicate_copy = 0x100;

bool is_faulted(uint32_t fate)
{
    return fate == regs::fault::corrupt_icrc || fate == regs::fault::corrupt_payload ||
           fate == regs::fault::bad_rkey || fate == regs::fault::bad_va;
}

} // namespace

size_t
rx_engine::fill_batch(uint64_t& next, uint64_t ready, uint64_t total, uint64_t allowed)
{
    // Leave room for a duplicated message (two copies) or a released held one. At
    // most `allowed` messages leave the FIFO (the dequeue rate); what overflowed
    // meanwhile is dropped whatever the rate.
    const size_t room = 2 * d_builder->packets_in(0);
    size_t count = 0;
    d_batch_taken = 0;
    while (next < ready && count + room <= max_batch_packets) {
        count = take_held(next, count); // exactly delay_messages later messages are out
        if (count + room > max_batch_packets)
            break;
        if (!d_rc && overflowed(next)) {
            next = drop_overflowed(next, ready);
            continue;
        }
        if (d_batch_taken == allowed)
            break;
        count = add_message(
            next, overflowed(next) ? regs::fault::overflow : d_plan->fate(next), count);
        next++;
        d_batch_taken++;
    }
    d_run_routes->poll(next);
    return take_held(next >= total ? UINT64_MAX : next, count);
}

uint64_t rx_engine::drop_overflowed(uint64_t first, uint64_t ready)
{
    // All messages whose samples the FIFO no longer holds go at once: a device far
    // behind (its host starved) drops seconds of samples in one go, with one log entry
    // and one report, not one per message, and answers its control port meanwhile.
    const rx_descriptor& d = d_desc;
    const uint64_t spm = d_builder->samples_per_message();
    const int64_t fifo_ns = static_cast<int64_t>(d.fifo_us) * 1000;
    const uint64_t held =
        samples_at(d, monotonic_ns() - d_mono_t0_ns - fifo_ns) / spm; // still in FIFO
    const uint64_t end = std::max(first + 1, std::min(ready, held));
    uint64_t samples = 0, packets = 0;
    for (uint64_t m = first; m < end; m++) {
        samples += d_builder->samples_in(m);
        packets += d_builder->packets_in(m);
        d_share_emitted.add(m, d_builder->samples_in(m));
        d_builder->skip(m);
    }
    d_packets_dropped += packets;
    d_samples_dropped += samples;
    d_samples_emitted += samples;
    d_faults.push({ first, regs::fault::overflow });
    if (d_metadata)
        d_metadata->event(d_index,
                          meta::event_code::device_overflow,
                          d_record_base + first * spm,
                          samples);
    return end;
}

bool rx_engine::overflowed(uint64_t message) const
{
    if (d_paced) // its timeline waits for it (hold_timeline()): never late
        return false;
    // A converter does not wait: samples the link could not take within the device's
    // FIFO depth are lost (overflow), counted and logged like any drop. The emulator is
    // late when its host is busy; a host judging packets by the clock must not then
    // mistake a late packet for a lost one.
    const rx_descriptor& d = d_desc;
    const uint64_t produced =
        std::min((message + 1) * d_builder->samples_per_message(), d_end);
    const int64_t late = monotonic_ns() - d_mono_t0_ns - time_of(d, produced);
    return late > static_cast<int64_t>(d.fifo_us) * 1000;
}

size_t rx_engine::take_held(uint64_t sent_up_to, size_t count)
{
    // Held messages leave in order, once the messages they wait for are out.
    while (!d_held.empty() && d_held.front().release_after < sent_up_to &&
           count + d_held.front().packets <= max_batch_packets) {
        const held_message& h = d_held.front();
        const size_t region = (h.message % max_held_messages) * d_builder->packets_in(0);
        for (size_t j = 0; j < h.packets; j++) {
            uint8_t* from = d_held_slots.data() + (region + j) * d_slot_bytes;
            uint8_t* to = d_slots.data() + (count + j) * d_slot_bytes;
            std::memcpy(to, from, d_slot_bytes);
            d_batch[count + j] = d_held_packets[region + j];
            d_batch[count + j].udp_payload = to + wire::headroom;
            d_batch_message[count + j] = h.message;
            d_batch_fate[count + j] = regs::fault::delay;
        }
        count += h.packets;
        d_held_busy[h.message % max_held_messages] = false;
        d_held.erase(d_held.begin());
    }
    return count;
}

size_t rx_engine::add_message(uint64_t message, uint32_t fate, size_t count)
{
    if (fate != regs::fault::none) {
        d_faults.push({ message, fate });
        // On RC an overflow goes out as zeros and is reported as substituted instead.
        if (d_metadata && !(fate == regs::fault::overflow && d_rc)) {
            const uint64_t first =
                d_record_base + message * d_builder->samples_per_message();
            if (fate == regs::fault::overflow)
                d_metadata->event(d_index,
                                  meta::event_code::device_overflow,
                                  first,
                                  d_builder->samples_in(message));
            else
                d_metadata->event(d_index, meta::event_code::fault_injected, first, fate);
        }
    }
    if (fate == regs::fault::overflow && d_rc) {
        // RC: a PSN left out makes the host drop every later packet until it comes
        // (go-back-N), which a late device can least afford: the lost samples go as
        // zeros, in sequence, counted and reported as substituted.
        packetizer::resend zeros;
        zeros.message = message;
        zeros.count = d_builder->packets_in(message);
        zeros.zeros = true;
        uint8_t* slots = d_slots.data() + count * d_slot_bytes;
        const size_t n = d_builder->rebuild(zeros, slots, d_slot_bytes, &d_batch[count]);
        for (size_t j = 0; j < n; j++) {
            d_batch_message[count + j] = message;
            d_batch_fate[count + j] = fate;
        }
        d_rc->sent_as_zeros(message, n ? d_batch[count].destination : 0);
        return count + n;
    }
    if (fate == regs::fault::drop || fate == regs::fault::overflow) {
        // Lost on the way: its samples were produced, its PSNs are consumed.
        const uint64_t samples = d_builder->samples_in(message);
        d_packets_dropped += d_builder->packets_in(message);
        d_samples_dropped += samples;
        d_samples_emitted += samples;
        d_share_emitted.add(message, samples);
        d_builder->skip(message);
        return count;
    }
    // Held messages live in regions indexed by message number; one whose region is
    // still taken is sent on time instead.
    const size_t held_index = message % max_held_messages;
    if (fate == regs::fault::delay && !d_held_busy[held_index]) {
        const size_t region = held_index * d_builder->packets_in(0);
        outgoing_packet held[max_batch_packets];
        uint8_t* slots = d_held_slots.data() + region * d_slot_bytes;
        const size_t n =
            d_builder->build(message, regs::fault::none, slots, d_slot_bytes, held);
        for (size_t j = 0; j < n; j++)
            d_held_packets[region + j] = held[j];
        d_held_busy[held_index] = true;
        d_held.push_back({ message + d_desc.impairments.delay_messages, message, n });
        return count;
    }
    if (fate == regs::fault::delay)
        fate = regs::fault::none; // no room to hold it: send it on time
    uint8_t* slots = d_slots.data() + count * d_slot_bytes;
    const size_t n =
        d_builder->build(message, fate, slots, d_slot_bytes, &d_batch[count]);
    for (size_t j = 0; j < n; j++) {
        d_batch_message[count + j] = message;
        d_batch_fate[count + j] = fate;
    }
    count += n;
    if (fate == regs::fault::duplicate) {
        std::memcpy(d_slots.data() + count * d_slot_bytes, slots, n * d_slot_bytes);
        for (size_t j = 0; j < n; j++) {
            d_batch[count + j] = d_batch[count - n + j];
            d_batch[count + j].udp_payload += n * d_slot_bytes;
            d_batch[count + j].message_samples = 0; // a copy: its samples count once
            d_batch_message[count + j] = message;
            d_batch_fate[count + j] = duplicate_copy;
        }
        count += n;
    }
    return count;
}

void rx_engine::account_sent(size_t sent)
{
    uint64_t samples = 0, imms = 0, faulted = 0, faulted_samples = 0, copies = 0,
             delayed = 0;
    for (size_t i = 0; i < sent; i++) {
        const outgoing_packet& p = d_batch[i];
        imms += p.immediate ? 1 : 0;
        const uint32_t fate = d_batch_fate[i];
        if (fate == duplicate_copy) {
            copies++;
            continue;
        }
        faulted += is_faulted(fate) ? 1 : 0;
        if (!p.ends_message)
            continue;
        const uint64_t n = d_builder->samples_in(d_batch_message[i]);
        samples += n;
        d_share_emitted.add(d_batch_message[i], n);
        faulted_samples += is_faulted(fate) ? n : 0;
        delayed += fate == regs::fault::delay ? 1 : 0;
    }
    d_packets_sent += sent;
    d_samples_emitted += samples;
    d_imm_sent += imms;
    d_packets_faulted += faulted;
    d_samples_faulted += faulted_samples;
    d_packets_duplicated += copies;
    d_messages_delayed += delayed;
}

size_t rx_engine::send_run(size_t first, size_t count, bool& whole)
{
    // The packets from first on to one destination go out in one call, on its link.
    const destination_table& routes = *d_run_routes;
    size_t end = count;
    uint8_t d = 0;
    if (routes.routing()) {
        d = d_batch[first].destination;
        end = first + 1;
        while (end < count && d_batch[end].destination == d)
            end++;
    }
    const socket_address& to =
        routes.routing() ? routes.address_of(d) : d_desc.destination;
    const size_t sent = routes.wire_of(d).send(d_batch.data() + first, end - first, to);
    whole = sent == end - first;
    return sent;
}

size_t rx_engine::send_all(size_t count, stream_thread::lock_type& lock)
{
    size_t sent = 0;
    while (true) {
        bool whole = true;
        while (sent < count && whole)
            sent += send_run(sent, count, whole);
        lock.lock();
        if (sent == count || !d_thread.running())
            return sent;
        // The transmit queue is full: back off briefly, as a link would.
        d_thread.sleep(lock, std::chrono::microseconds(20));
        lock.unlock();
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
