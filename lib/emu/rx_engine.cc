/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../meta/metadata_packet.h"
#include "../regs/register_map.h"
#include "message_builder.h"
#include "rx_engine.h"
#include "udp_sample_builder.h"
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

namespace gr {
namespace rdma {
namespace emu {

namespace {

// Room for two copies of a 64 KiB message in 1 KiB packets (a duplicated message).
constexpr size_t max_batch_packets = 128;
constexpr uint32_t max_payload_bytes = 65536;
// BTH + RETH + ImmDt, the largest header set the engine sends.
constexpr size_t max_headers = roce::bth_bytes + roce::reth_bytes + roce::immdt_bytes;
// Wake at most this often: a hardware engine sends as samples come, the emulator
// trades a little latency for fewer wake-ups.
constexpr int64_t min_sleep_ns = 50000;
// Batch fate of the extra copy of a duplicated message: counted, carries no samples.
constexpr uint32_t duplicate_copy = 0x100;
// RC: look for ACK/NAKs at least this often while waiting for samples, so that a NAK
// is answered well within the host's grace period however slow the stream.
constexpr int64_t rc_max_sleep_ns = 500000;

bool is_faulted(uint32_t fate)
{
    return fate == regs::fault::corrupt_icrc || fate == regs::fault::corrupt_payload ||
           fate == regs::fault::bad_rkey || fate == regs::fault::bad_va;
}

} // namespace

uint32_t validate(const rx_descriptor& d, unsigned link_mtu)
{
    namespace ec = regs::error_code;
    const uint32_t fmt = static_cast<uint32_t>(d.signal.format);
    if (fmt != regs::format::sc16 && fmt != regs::format::fc32 &&
        fmt != regs::format::sc8)
        return ec::bad_format;
    const size_t item = item_size(d.signal.format);
    if (d.payload_bytes == 0 || d.payload_bytes % item ||
        d.payload_bytes > max_payload_bytes)
        return ec::bad_payload;
    if (!roce::valid_path_mtu(d.path_mtu) ||
        d.path_mtu + wire::headroom + max_headers + roce::icrc_bytes > link_mtu)
        return ec::bad_mtu;
    if (d.ring_bytes == 0 || d.ring_bytes % d.payload_bytes || d.va + d.ring_bytes < d.va)
        return ec::bad_ring;
    if (d.rate_num == 0 || d.rate_den == 0)
        return ec::bad_rate;
    if (d.destination.ip() == 0 || d.destination.port() == 0 || d.dest_qpn == 0)
        return ec::bad_destination;
    if (d.transport != regs::transport_type::uc &&
        d.transport != regs::transport_type::rc &&
        d.transport != regs::transport_type::udp)
        return ec::bad_transport;
    if (d.transport == regs::transport_type::udp &&
        !udp_sample_builder::fits(d, link_mtu))
        return ec::bad_payload; // one datagram per message
    if ((d.payload_bytes + d.path_mtu - 1) / d.path_mtu * 2 > max_batch_packets)
        return ec::bad_payload; // a duplicated message must fit in one batch
    return ec::none;
}

rx_engine::rx_engine(unsigned index,
                     wire& link,
                     metadata_sink* metadata,
                     ack_receiver* acks,
                     const engine_radio& radio)
    : d_index(index),
      d_link(link),
      d_metadata(metadata),
      d_acks(acks),
      d_own_clock(radio.clock ? nullptr : std::make_unique<device_clock>()),
      d_clock(radio.clock ? *radio.clock : *d_own_clock),
      d_channel(radio.channel),
      d_commands(radio.commands)
{
    d_thread.launch("emu-rx" + std::to_string(d_index),
                    [this](stream_thread::lock_type& lock) { stream(lock); });
}

rx_engine::~rx_engine() { d_thread.shutdown(); }

uint32_t rx_engine::start(const rx_descriptor& d)
{
    stream_thread::lock_type lock = d_thread.lock();
    if (d_thread.running()) {
        // The run goes on; RX_STATUS says why this START was refused. The run's thread
        // writes the status only with the lock held, which we hold.
        d_status = (d_status.load() & (regs::status::running | regs::status::done)) |
                   regs::status::error |
                   (regs::error_code::busy << regs::status::error_shift);
        return regs::error_code::busy;
    }
    uint32_t error = validate(d, d_link.mtu());
    if (error == regs::error_code::none && d.transport == regs::transport_type::rc &&
        !d_acks)
        error = regs::error_code::bad_transport; // nothing hears this link's ACKs
    // The emulator's RC requester follows one burst per run: queued mode is UC only.
    if (error == regs::error_code::none && d.queued &&
        d.transport != regs::transport_type::uc)
        error = regs::error_code::bad_transport;
    if (error != regs::error_code::none) {
        d_status = regs::status::error | (error << regs::status::error_shift);
        return error;
    }
    // Wait for the thread to leave the previous run before handing it a new one.
    d_thread.wait_idle(lock);
    const uint64_t t0 = d.start_time_ns ? d.start_time_ns : d_clock.now();
    d_mono_t0_ns = d_clock.oscillator_at(t0);
    d_desc = d;
    d_end = d.num_samples ? d.num_samples : UINT64_MAX;
    d_stop_request = UINT64_MAX;
    d_stop_time_ns = UINT64_MAX;
    d_seg_anchor_ns = t0;
    d_seg_offset = 0;
    d_queued = d.queued;
    d_between = d.queued;
    d_record_base = 0;
    d_burst_emitted_base = 0;
    d_next_psn = d.start_psn;
    d_rc.reset(); // it uses the builder, which uses the source
    d_builder.reset();
    d_source.reset();
    if (d.queued) {
        // Nothing to send until a burst is pushed; each burst gets its builder.
        d_end = 0;
        std::lock_guard<std::mutex> bq(d_bq_mutex);
        d_bursts.clear();
        d_bq_open = true;
        d_bq_last = burst_plan{ t0, 0, 0, d.first_message };
        d_bq_next_message = d.first_message;
        d_bq_rate_num = d.rate_num;
        d_bq_rate_den = d.rate_den;
        d_bq_spm = d.payload_bytes / item_size(d.signal.format);
    } else {
        if (d_channel) // before the source reads its tunings
            d_channel->begin_run(t0, d.rate_num, d.rate_den);
        d_source = make_sample_source(d, t0, d_channel);
        d_builder = make_packetizer(d, d_source.get());
    }
    d_plan = std::make_unique<impairment_plan>(d.impairments);
    d_slot_bytes = d.transport == regs::transport_type::udp
                       ? udp_sample_builder::slot_bytes_for(d.payload_bytes)
                       : message_builder::slot_bytes_for(d.path_mtu);
    d_slots.assign(max_batch_packets * d_slot_bytes, 0);
    d_batch.assign(max_batch_packets, outgoing_packet{});
    d_batch_message.assign(max_batch_packets, 0);
    d_batch_fate.assign(max_batch_packets, 0);
    const size_t packets_per_message = (d.payload_bytes + d.path_mtu - 1) / d.path_mtu;
    const size_t held_packets =
        d_plan->active() ? max_held_messages * packets_per_message : 0;
    d_held_slots.assign(held_packets * d_slot_bytes, 0);
    d_held_packets.assign(held_packets, outgoing_packet{});
    d_held_busy.fill(false);
    d_held.clear();
    d_held.reserve(max_held_messages);
    d_faults.clear();
    d_rc_stats.clear();
    if (d.transport == regs::transport_type::rc && !d.queued)
        d_rc = std::make_unique<rc_requester>(
            d_index, d, *d_builder, *d_acks, d_metadata, d_rc_stats, max_batch_packets);

    d_start_time_ns = t0;
    d_next_message = 0;
    for (auto* c : { &d_packets_sent,
                     &d_samples_emitted,
                     &d_packets_dropped,
                     &d_samples_dropped,
                     &d_imm_sent,
                     &d_packets_faulted,
                     &d_samples_faulted,
                     &d_packets_duplicated,
                     &d_messages_delayed })
        c->store(0);
    d_status = regs::status::running;
    if (d_metadata && !d.queued) // a queued run: each burst says when it starts
        d_metadata->stream_started(d_index, t0);
    d_thread.begin(lock);
    return regs::error_code::none;
}

void rx_engine::stop()
{
    d_thread.stop();
    close_queue();
    const uint32_t status = d_status.load();
    if (status & regs::status::running)
        account_unsent(monotonic_ns());
    d_status = status & ~regs::status::running;
    if (d_channel) // also a run the thread never took up
        d_channel->end_run();
}

void rx_engine::stop_at(uint64_t at_ns)
{
    stream_thread::lock_type lock = d_thread.lock();
    if (!d_thread.running())
        return;
    // Queued mode: bursts that would start at or after at_ns are not sent either.
    uint64_t time = d_stop_time_ns.load();
    while (at_ns < time && !d_stop_time_ns.compare_exchange_weak(time, at_ns)) {
    }
    if (d_queued && d_between) {
        d_thread.poke(lock);
        return;
    }
    const uint64_t k = burst_stop_sample(at_ns);
    uint64_t current = d_stop_request.load();
    while (k < current && !d_stop_request.compare_exchange_weak(current, k)) {
    }
    d_thread.poke(lock); // the last message may be due earlier now
}

uint64_t rx_engine::burst_stop_sample(uint64_t at_ns) const
{
    // The first sample of the current builder taken at or after at_ns: the smallest k
    // with anchor + (offset + k) / rate >= at_ns. The rate does not change in a run.
    const uint64_t k =
        first_sample_at(d_seg_anchor_ns, at_ns, d_desc.rate_num, d_desc.rate_den);
    return k > d_seg_offset ? k - d_seg_offset : 0;
}

bool rx_engine::apply_stop_request()
{
    // Messages built are never taken back: the run ends at the request or after the
    // last message built, whichever is later.
    const uint64_t request = d_stop_request.exchange(UINT64_MAX);
    if (request == UINT64_MAX)
        return false;
    const uint64_t end =
        std::max(request, d_next_message * d_builder->samples_per_message());
    if (end >= d_end)
        return false;
    d_end = end;
    d_builder->end_at(end);
    return true;
}

uint64_t rx_engine::device_time_of(uint64_t sample) const
{
    return time_at(
        d_seg_anchor_ns, d_seg_offset + sample, d_desc.rate_num, d_desc.rate_den);
}

uint32_t rx_engine::status() const { return d_status.load(); }

rx_counters rx_engine::counters() const
{
    rx_counters c;
    c.packets_sent = d_packets_sent.load();
    c.samples_emitted = d_samples_emitted.load();
    c.packets_dropped = d_packets_dropped.load();
    c.samples_dropped = d_samples_dropped.load();
    c.imm_sent = d_imm_sent.load();
    c.packets_faulted = d_packets_faulted.load();
    c.samples_faulted = d_samples_faulted.load();
    c.packets_duplicated = d_packets_duplicated.load();
    c.messages_delayed = d_messages_delayed.load();
    c.naks_received = d_rc_stats.naks_received.load();
    c.retransmits = d_rc_stats.retransmits.load();
    c.zero_substituted = d_rc_stats.zero_substituted.load();
    c.acks_received = d_rc_stats.acks_received.load();
    c.packets_abandoned = d_rc_stats.packets_abandoned.load();
    return c;
}

void rx_engine::stream(stream_thread::lock_type& lock)
{
    // However the run ends, the channel's later changes are no longer the run's.
    struct end_of_run {
        rf_channel* channel;
        ~end_of_run()
        {
            if (channel)
                channel->end_run();
        }
    } end_guard{ d_channel };
    const rx_descriptor& d = d_desc;
    const uint64_t spm = d.payload_bytes / item_size(d.signal.format);
    uint64_t& next = d_next_message;

    while (d_thread.running()) {
        if (d_queued && d_between) {
            // Queued mode: RUNNING and idle until a burst is pushed, or a timed STOP
            // comes (then the run ends; DONE is never set in queued mode).
            uint64_t wait_ns = 10000000; // also looks for a timed STOP now and then
            const next_burst n = begin_next_burst(wait_ns);
            if (n == next_burst::end) {
                close_queue();
                d_status = 0;
                return;
            }
            if (n == next_burst::wait) {
                d_thread.sleep(
                    lock,
                    std::chrono::nanoseconds(std::min<uint64_t>(wait_ns, 10000000)));
                continue;
            }
        }
        if (d_rc) {
            // RC: answers first, then retransmissions before anything new (go-back-N).
            const int64_t now = monotonic_ns();
            d_rc->poll(now);
            if (d_rc->failed()) {
                d_status = regs::status::error; // the host QP is in ERROR
                return;
            }
            if (d_rc->busy(now)) {
                if (!resend(lock, now))
                    return;
                continue;
            }
        }
        // A timed STOP shortens the run to a burst; a continuous run has no last message.
        apply_stop_request();
        const uint64_t burst = d_end;
        const uint64_t total = d_builder->total_messages();
        // A burst is done when all of it left and, on RC, the host acknowledged it.
        const bool all_out = next == total && d_held.empty();
        if (all_out && d_queued) {
            if (burst_finished())
                continue;
            close_queue();
            d_status = 0;
            return;
        }
        if (all_out && (!d_rc || d_rc->finished())) {
            d_status = regs::status::done;
            if (d_metadata)
                d_metadata->stream_ended(d_index, d_samples_emitted.load());
            return;
        }
        const int64_t now = monotonic_ns();
        const int64_t elapsed = now - d_mono_t0_ns;
        const uint64_t produced = std::min(samples_at(d, elapsed), burst);
        // (A continuous stream has no last message: before its START_TIME nothing is
        // ready, not everything.)
        const uint64_t ready =
            burst != UINT64_MAX && produced == burst ? total : produced / spm;
        if ((next >= ready && next < total) || all_out) {
            int64_t sleep_ns = INT64_MAX; // all out: only the ACKs are awaited
            if (next < total) {
                const int64_t due = time_of(d, std::min((next + 1) * spm, burst));
                sleep_ns = std::max(due - elapsed, min_sleep_ns);
            }
            if (d_rc)
                sleep_ns = rc_sleep_ns(now, sleep_ns);
            d_thread.sleep(lock, std::chrono::nanoseconds(sleep_ns));
            continue;
        }
        // Build and send a batch without holding the lock: STOP waits for the thread to
        // leave the run, and nothing the thread uses changes while running.
        lock.unlock();
        if (!run_due_commands(std::min(ready * spm, burst))) {
            lock.lock(); // a STOP ended the run earlier than `ready`
            continue;
        }
        const size_t count = fill_batch(next, ready, total);
        const size_t sent = send_all(count, lock);
        account_sent(sent);
        if (d_rc)
            d_rc->first_sent(next, monotonic_ns());
        if (d_metadata)
            d_metadata->progress(
                d_index, d_record_base + d_samples_emitted.load() - d_burst_emitted_base);
        if (sent < count)
            return;
    }
}

size_t rx_engine::fill_batch(uint64_t& next, uint64_t ready, uint64_t total)
{
    // Leave room for a duplicated message (two copies) or a released held one.
    const size_t room = 2 * d_builder->packets_in(0);
    size_t count = 0;
    while (next < ready && count + room <= max_batch_packets) {
        count = take_held(next, count); // exactly delay_messages later messages are out
        if (count + room > max_batch_packets)
            break;
        if (!d_rc && overflowed(next)) {
            next = drop_overflowed(next, ready);
            continue;
        }
        count = add_message(
            next, overflowed(next) ? regs::fault::overflow : d_plan->fate(next), count);
        next++;
    }
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
        d_rc->sent_as_zeros(message);
        return count + n;
    }
    if (fate == regs::fault::drop || fate == regs::fault::overflow) {
        // Lost on the way: its samples were produced, its PSNs are consumed.
        const uint64_t samples = d_builder->samples_in(message);
        d_packets_dropped += d_builder->packets_in(message);
        d_samples_dropped += samples;
        d_samples_emitted += samples;
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

int64_t rx_engine::rc_sleep_ns(int64_t now_ns, int64_t sleep_ns) const
{
    const int64_t until_deadline = std::max(d_rc->next_deadline() - now_ns, min_sleep_ns);
    return std::min({ sleep_ns, until_deadline, rc_max_sleep_ns });
}

bool rx_engine::resend(stream_thread::lock_type& lock, int64_t now_ns)
{
    if (!d_rc->can_resend(now_ns)) {
        // The host asked to back off (RNR): nothing leaves until the backoff ends.
        d_thread.sleep(lock, std::chrono::nanoseconds(rc_sleep_ns(now_ns, INT64_MAX)));
        return true;
    }
    // One batch per iteration: the loop looks for answers between batches.
    lock.unlock();
    const size_t count = d_rc->build_resend(d_slots.data(), d_slot_bytes, d_batch.data());
    const size_t sent = send_all(count, lock);
    d_rc->resent(sent, monotonic_ns());
    d_packets_sent += sent;
    return sent == count;
}

size_t rx_engine::send_all(size_t count, stream_thread::lock_type& lock)
{
    size_t sent = 0;
    while (true) {
        sent += d_link.send(d_batch.data() + sent, count - sent, d_desc.destination);
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
