/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "rx_engine.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

// A queued burst is taken up from the queue this long before its time (its first
// message is due a message later).
constexpr uint64_t burst_lead_ns = 1000000;

} // namespace

// ---- Queued bursts (docs/radio.md, "Burst queue") ---------------------------------

uint32_t rx_engine::push_burst(const queued_burst& b)
{
    uint32_t error;
    {
        std::lock_guard<std::mutex> bq(d_bq_mutex);
        error = queue_burst(b);
    }
    if (error == regs::bq::error::none) { // an idle run starts it now
        stream_thread::lock_type lock = d_thread.lock();
        d_thread.poke(lock);
    }
    return error;
}

uint32_t rx_engine::queue_burst(const queued_burst& b)
{
    namespace err = regs::bq::error;
    if (!d_bq_open)
        return err::not_running;
    if (d_bursts.size() >= regs::bq::emulator_capacity)
        return err::full;
    if (b.samples == 0)
        return err::no_samples;
    const uint64_t first =
        b.first_message == regs::bq::next_message ? d_bq_next_message : b.first_message;
    if (first < d_bq_next_message)
        return err::message_behind;
    const burst_plan& last = d_bq_last;
    // The previous burst ends when the sample after its last would be taken.
    const uint64_t last_end = time_at(
        last.anchor_ns, last.offset + last.samples, d_bq_rate_num, d_bq_rate_den, true);
    if (b.time_ns && b.time_ns < last_end)
        return err::time_behind;
    burst_plan p;
    p.anchor_ns = b.time_ns ? b.time_ns : last.anchor_ns;
    p.offset = b.time_ns ? 0 : last.offset + last.samples;
    p.samples = b.samples;
    p.first_message = first;
    const uint64_t spm = d_bq_spm;
    d_bq_next_message = first + (b.samples + spm - 1) / spm;
    d_bq_last = p;
    d_bursts.push_back(p);
    return err::none;
}

void rx_engine::clear_bursts()
{
    std::lock_guard<std::mutex> bq(d_bq_mutex);
    d_bursts.clear();
}

uint32_t rx_engine::bursts_queued() const
{
    std::lock_guard<std::mutex> bq(d_bq_mutex);
    return static_cast<uint32_t>(d_bursts.size());
}

void rx_engine::close_queue()
{
    std::lock_guard<std::mutex> bq(d_bq_mutex);
    d_bq_open = false;
    d_bursts.clear();
}

rx_engine::next_burst rx_engine::begin_next_burst(uint64_t& wait_ns)
{
    // With the thread's lock held, between bursts of a queued run.
    const uint64_t stop_time = d_stop_time_ns.load();
    rx_descriptor& d = d_desc;
    const uint64_t now = d_clock.now();
    burst_plan b;
    uint64_t t0 = 0;
    {
        std::lock_guard<std::mutex> bq(d_bq_mutex);
        if (d_bursts.empty())
            return stop_time <= now ? next_burst::end : next_burst::wait;
        b = d_bursts.front();
        t0 = time_at(b.anchor_ns, b.offset, d.rate_num, d.rate_den);
        if (stop_time <= t0)
            return next_burst::end; // a timed STOP comes first
        // A burst starts at its time: until then it is queued (and CLEAR drops it).
        if (t0 > now + burst_lead_ns) {
            wait_ns = t0 - now - burst_lead_ns;
            return next_burst::wait;
        }
        d_bursts.pop_front();
    }
    // A finite burst of its own, numbered from its first message, the PSNs going on.
    d.num_samples = b.samples;
    d.first_message = b.first_message;
    d.notify_from_first = true;
    d.start_psn = d_next_psn;
    d_seg_anchor_ns = b.anchor_ns;
    d_seg_offset = b.offset;
    d_mono_t0_ns = d_clock.oscillator_at(b.anchor_ns) +
                   static_cast<int64_t>(time_at(0, b.offset, d.rate_num, d.rate_den));
    d_end = b.samples;
    d_next_message = 0;
    d_builder.reset();
    if (d_channel) { // each burst is a run of the RF channel, from its own sample 0
        d_channel->end_run();
        d_channel->begin_run(t0, d.rate_num, d.rate_den);
    }
    d_source = make_sample_source(d, t0, d_channel);
    d_builder = make_packetizer(d, d_source.get());
    d_stop_request = stop_time == UINT64_MAX ? UINT64_MAX : burst_stop_sample(stop_time);
    const uint64_t spm = d_builder->samples_per_message();
    d_record_base = b.first_message * spm;
    d_burst_emitted_base = d_samples_emitted.load();
    d_between = false;
    if (d_metadata)
        d_metadata->stream_started(d_index, t0, d_record_base);
    return next_burst::started;
}

bool rx_engine::burst_finished()
{
    // The current burst is all out: the next one may begin. False if a timed STOP
    // ends the run here.
    const rx_descriptor& d = d_desc;
    if (d_metadata)
        d_metadata->stream_ended(d_index, d_record_base + d_end);
    const uint64_t total = d_builder->total_messages();
    const uint64_t per_message = (d.payload_bytes + d.path_mtu - 1) / d.path_mtu;
    const uint64_t packets =
        total ? (total - 1) * per_message + d_builder->packets_in(total - 1) : 0;
    d_next_psn = static_cast<uint32_t>(d.start_psn + packets) & 0xFFFFFF;
    d_between = true;
    // A STOP at or before the time of the sample after the burst's last ends the run.
    const uint64_t end =
        time_at(d_seg_anchor_ns, d_seg_offset + d_end, d.rate_num, d.rate_den, true);
    const uint64_t stop = d_stop_time_ns.load();
    return stop == UINT64_MAX || stop > end;
}

bool rx_engine::run_due_commands(uint64_t end)
{
    // Samples below `end` are about to be computed: first the commands due by the time
    // of the last of them (one at time T acts on the first sample at or after T, which
    // is below `end` exactly when T <= that sample's time), then the channel learns
    // that later changes start at `end` or after. Returns false if a STOP among them
    // ended the run earlier: the caller looks again.
    if (d_commands && end > 0) {
        d_commands->run_due(d_index, device_time_of(end - 1));
        if (apply_stop_request())
            return false;
    }
    if (d_channel)
        d_channel->advance(end);
    return true;
}

void rx_engine::account_unsent(int64_t now_ns)
{
    // A converter does not stop producing because the link fell behind: everything it
    // produced before the STOP counts as emitted, and what never left as dropped (the
    // messages not yet sent, the one still filling, and those held back). The host
    // accounts for the same samples, up to the device's final count.
    const rx_descriptor& d = d_desc;
    if (d_queued && d_between) // between bursts the converter produces nothing
        return;
    const uint64_t burst = d_end;
    const uint64_t produced = std::min(samples_at(d, now_ns - d_mono_t0_ns), burst);
    const uint64_t spm = d_builder->samples_per_message();
    uint64_t samples = 0, packets = 0;
    for (const held_message& h : d_held) {
        samples += d_builder->samples_in(h.message);
        packets += h.packets;
        d_share_emitted.add(h.message, d_builder->samples_in(h.message));
    }
    d_held.clear();
    const uint64_t sent_upto = d_next_message * spm; // next is 0 before the first send
    if (produced > sent_upto) {
        samples += produced - sent_upto;
        d_share_emitted.add_range(d_next_message, produced, spm);
        const uint64_t whole = produced / spm; // messages complete at the converter
        for (uint64_t m = d_next_message; m < whole; m++)
            packets += d_builder->packets_in(m);
    }
    d_samples_emitted += samples;
    d_samples_dropped += samples;
    d_packets_dropped += packets;
}

} // namespace emu
} // namespace rdma
} // namespace gr
