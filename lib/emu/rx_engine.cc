/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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

// Wake at most this often: a hardware engine sends as samples come, the emulator
// trades a little latency for fewer wake-ups.
constexpr int64_t min_sleep_ns = 50000;
// RC: look for ACK/NAKs at least this often while waiting for samples, so that a NAK
// is answered well within the host's grace period however slow the stream.
constexpr int64_t rc_max_sleep_ns = 500000;
// Held by its dequeue rate, a stream still looks this often for messages that
// overflowed meanwhile, so that its drop counters stay current.
constexpr int64_t max_held_ns = 1000000;


} // namespace

rx_engine::rx_engine(unsigned index,
                     wire& link,
                     metadata_sink* metadata,
                     ack_receiver* acks,
                     const engine_radio& radio,
                     const link_set* links)
    : d_index(index),
      d_link(link),
      d_links(links),
      d_metadata(metadata),
      d_acks(acks),
      d_link_acks{ acks },
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
    if (error == regs::error_code::none)
        error = destination_table::validate(d, d_links);
    if (error == regs::error_code::none && d.transport == regs::transport_type::rc)
        error = rc_destinations::validate(d, d_link_acks); // something hears the ACKs
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
    d_paced = d_pacing && d_pacing->on.load(std::memory_order_acquire);
    if (d_paced) {
        d_pacing->produced.store(0, std::memory_order_release);
        d_pacing->sent.store(0, std::memory_order_release);
        d_pacing->sent_at_ns.store(consumer_pacing::now_ns(), std::memory_order_release);
    }
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
    {
        std::lock_guard<std::mutex> routes(d_routes_mutex);
        d_routes = std::make_shared<destination_table>(d, d_links, d_link);
        d_run_routes = d_routes.get();
    }
    // Every run starts its RC counters at 0, a UC run too (its RC blocks read 0).
    d_rc_stats.clear();
    for (rc_destination_stats& s : d_rc_destination)
        s.clear();
    if (d.transport == regs::transport_type::rc && !d.queued)
        d_rc = std::make_unique<rc_destinations>(d_index,
                                                 d,
                                                 *d_builder,
                                                 d_link_acks,
                                                 d_run_routes,
                                                 d_metadata,
                                                 d_rc_stats,
                                                 d_rc_destination,
                                                 max_batch_packets);
    // Routed RC: the requesters note where each message goes, for its resends.
    if (d_builder && d_run_routes->routing())
        d_builder->set_router(d_rc ? static_cast<message_router*>(d_rc.get())
                                   : d_run_routes);
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

    d_start_time_ns = t0;
    d_next_message = 0;
    d_limiter = dequeue_limiter(); // a run's rate starts with no credit and no debt
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
    d_share_emitted.reset(d.shares, d.share_block);
    d_stop_cause = regs::stop_cause::none;
    d_status = regs::status::running;
    if (d_metadata && !d.queued) // a queued run: each burst says when it starts
        d_metadata->stream_started(d_index, t0);
    d_thread.begin(lock);
    return regs::error_code::none;
}

void rx_engine::stop(uint32_t cause)
{
    d_thread.stop();
    close_queue();
    const uint32_t status = d_status.load();
    if (status & regs::status::running) {
        account_unsent(monotonic_ns());
        d_stop_cause = cause;
    }
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

std::shared_ptr<destination_table> rx_engine::routes() const
{
    std::lock_guard<std::mutex> lock(d_routes_mutex);
    return d_routes;
}

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
    for (const rc_destination_stats& r : d_rc_destination) {
        c.naks_received += r.naks.load();
        c.retransmits += r.retransmits.load();
        c.packets_abandoned += r.abandoned.load();
    }
    c.zero_substituted = d_rc_stats.zero_substituted.load();
    c.acks_received = d_rc_stats.acks_received.load();
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
                d_stop_cause = regs::stop_cause::command; // a timed STOP ended the queue
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
            report_naks();
            if (d_rc->failed()) {
                d_stop_cause = regs::stop_cause::failed;
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
            d_stop_cause = regs::stop_cause::command;
            d_status = 0;
            return;
        }
        if (all_out && (!d_rc || d_rc->finished())) {
            d_stop_cause = regs::stop_cause::done;
            d_status = regs::status::done;
            if (d_metadata)
                d_metadata->stream_ended(d_index, d_samples_emitted.load());
            return;
        }
        const int64_t now = monotonic_ns();
        if (d_paced)
            hold_timeline(now, next * spm);
        const int64_t elapsed = now - d_mono_t0_ns;
        const uint64_t produced = std::min(samples_at(d, elapsed), burst);
        // (A continuous stream has no last message: before its START_TIME nothing is
        // ready, not everything.)
        const uint64_t ready =
            burst != UINT64_MAX && produced == burst ? total : produced / spm;
        const uint64_t allowed = dequeue_allowed(now, next, ready);
        if ((next >= ready && next < total) || all_out || allowed == UINT64_MAX) {
            int64_t sleep_ns = INT64_MAX; // all out: only the ACKs are awaited
            if (allowed ==
                UINT64_MAX) // held by the rate: what is due waits (or overflows)
                sleep_ns =
                    std::clamp(d_limiter.next_ns() - now, min_sleep_ns, max_held_ns);
            else if (next < total) {
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
        if (d_paced) // what may be written from now: the host's bound
            d_pacing->produced.store(std::min(ready * spm, burst),
                                     std::memory_order_release);
        const size_t count = fill_batch(next, ready, total, allowed);
        d_limiter.take(now, d.payload_bytes, d_batch_taken);
        const size_t sent = send_all(count, lock);
        account_sent(sent);
        if (d_paced) { // the time first: a host that sees the count sees its time
            d_pacing->sent_at_ns.store(consumer_pacing::now_ns(),
                                       std::memory_order_release);
            d_pacing->sent.store(std::min(next * spm, burst), std::memory_order_release);
        }
        if (d_rc)
            d_rc->first_sent(next, monotonic_ns());
        if (d_metadata)
            d_metadata->progress(
                d_index, d_record_base + d_samples_emitted.load() - d_burst_emitted_base);
        if (sent < count)
            return;
    }
}

void rx_engine::hold_timeline(int64_t now_ns, uint64_t sent)
{
    // emu_pace=consumer: the run's timeline stands still at the consumer's gate (whole
    // messages), and a little past what the engine has sent: a stalled engine makes a
    // slower device, never a late one, so nothing overflows. Samples keep their
    // nominal times (device_time_of()): what is shifted is when they are produced.
    const rx_descriptor& d = d_desc;
    const uint64_t spm = d_builder->samples_per_message();
    const uint64_t gate = d_pacing->gate.load(std::memory_order_acquire) / spm * spm;
    // The next message may always be complete, however long a message lasts.
    const int64_t latest =
        std::min(time_of(d, gate), time_of(d, sent + spm) + paced_slack_ns);
    if (now_ns - d_mono_t0_ns > latest)
        d_mono_t0_ns = now_ns - latest;
}

uint64_t rx_engine::dequeue_allowed(int64_t now_ns, uint64_t next, uint64_t ready)
{
    // How many messages may leave the FIFO now (docs/register-map.md, "Controller");
    // UINT64_MAX: none may, and none is old enough to overflow yet (wait for the rate).
    const uint64_t due = ready > next ? ready - next : 0;
    if (!d_rate_source || due == 0)
        return due;
    d_limiter.set_rate(d_rate_source->load(std::memory_order_relaxed), now_ns);
    const uint64_t n = d_limiter.allowed(now_ns, d_desc.payload_bytes, due);
    return n == 0 && (d_rc || !overflowed(next)) ? UINT64_MAX : n;
}

void rx_engine::report_naks()
{
    // Once per pass of the loop at most, and only on a change: the controller keeps the
    // latest count, so several NAKs between two passes are one event. So are the RTTs.
    if (d_ctrl_sink)
        d_rc->report(*d_ctrl_sink);
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
    const size_t count =
        d_rc->build_resend(d_slots.data(), d_slot_bytes, d_batch.data(), now_ns);
    const size_t sent = send_all(count, lock);
    d_rc->resent(sent, monotonic_ns());
    d_packets_sent += sent;
    return sent == count;
}

} // namespace emu
} // namespace rdma
} // namespace gr
