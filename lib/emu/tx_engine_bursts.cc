/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The TX engine's queued bursts (docs/register-map.md, "TX burst queue") and its TX
// records (docs/metadata.md, "TX records").

#include "../meta/metadata_packet.h"
#include "rx_descriptor.h"
#include "tx_engine.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {
// An underflow that lasts sends a record at least this often (device time), so that a
// stalled host hears of it.
constexpr int64_t underflow_report_ns = 50000000;
} // namespace

// ---- The TX burst queue --------------------------------------------------------------

uint32_t tx_engine::push_entry(const tx_entry& e)
{
    tx_entry pushed = e;
    pushed.pushed_at = d_clock.oscillator_now();
    uint32_t error;
    {
        std::lock_guard<std::mutex> q(d_queue_mutex);
        error = d_queue.push(pushed);
    }
    if (error == regs::tbq::error::none) { // the engine takes it up at once if it may
        stream_thread::lock_type lock = d_thread.lock();
        d_thread.poke(lock);
    }
    return error;
}

void tx_engine::clear_entries()
{
    std::lock_guard<std::mutex> q(d_queue_mutex);
    d_queue.clear();
}

uint32_t tx_engine::entries_queued() const
{
    std::lock_guard<std::mutex> q(d_queue_mutex);
    return static_cast<uint32_t>(d_queue.size());
}

void tx_engine::take_up(uint64_t ticks_now, int64_t now, int64_t& wake)
{
    if (!d_desc.queued)
        return;
    const uint32_t num = d_desc.rate_num, den = d_desc.rate_den;
    const uint64_t lead_ticks = first_sample_at(0, uint64_t(d_lead_ns), num, den);
    std::lock_guard<std::mutex> q(d_queue_mutex);
    for (;;) {
        const tx_entry* e = d_queue.front();
        const bool end = e && e->op == regs::tbq::op::end;
        if (!e || (end ? !d_sched.can_end() : !d_sched.can_start()))
            break; // bursts taken up retire as they play
        if (end) {
            d_sched.end(e->item);
        } else if (e->time_ns == 0) {
            d_sched.start_asap(ticks_now, lead_ticks);
        } else {
            // A lead time ahead of its first tick, or at once if that has passed.
            const uint64_t tick = first_sample_at(d_start_time_ns, e->time_ns, num, den);
            const int64_t due = tick_time(tick) - d_lead_ns;
            if (now < due) {
                wake = std::min(wake, due);
                break;
            }
            // Judged at the instant the device takes it up: when it became due, or
            // when it was pushed if later. A step of the engine that comes late (the
            // emulator's own scheduling delay) is charged to nobody, as in play(); a
            // START pushed after its time is still late.
            const int64_t taken_at = std::max(due, e->pushed_at);
            const uint64_t ticks_then =
                taken_at <= d_mono_t0
                    ? 0
                    : first_sample_at(uint64_t(d_mono_t0), uint64_t(taken_at), num, den);
            if (!d_sched.start_at(tick, e->time_ns, std::min(ticks_now, ticks_then)))
                time_error(e->item, e->time_ns);
        }
        d_queue.pop();
    }
}

void tx_engine::time_error(uint64_t item, uint64_t time_ns)
{
    d_time_errors++;
    report(meta::event_code::tx_time_error, item, time_ns, d_clock.now());
}

void tx_engine::burst_ended(const tx_burst_schedule::event& e)
{
    d_bursts_done++;
    report(meta::event_code::tx_burst_ack, e.item, device_time(d_sched.tick()), e.played);
}

// ---- The TX records ------------------------------------------------------------------

void tx_engine::note_underflow(uint64_t item, uint64_t ticks)
{
    if (ticks == 0)
        return;
    if (!d_uf.open)
        d_uf = { true, item, d_sched.tick(), 0 };
    d_uf.zeros += ticks;
    // Each record counts its own zeros; a long underflow is reported as it goes.
    if (tick_time(d_sched.tick() + ticks) - tick_time(d_uf.first_tick) >=
        underflow_report_ns)
        close_reports(true, false);
}

void tx_engine::note_late(uint64_t item, uint64_t ticks)
{
    if (!d_late_run.open)
        d_late_run = { true, item, d_sched.tick(), 0 };
    d_late_run.zeros += ticks;
}

void tx_engine::close_reports(bool underflow, bool late)
{
    if (underflow && d_uf.open)
        report(meta::event_code::tx_underflow,
               d_uf.item,
               device_time(d_uf.first_tick),
               d_uf.zeros);
    if (late && d_late_run.open)
        report(meta::event_code::tx_late,
               d_late_run.item,
               device_time(d_late_run.first_tick),
               d_late_run.zeros);
    if (underflow)
        d_uf.open = false;
    if (late)
        d_late_run.open = false;
}

void tx_engine::report(uint32_t code, uint64_t sample, uint64_t time_ns, uint64_t value)
{
    d_reports.add({ code, sample, time_ns, value });
}

void tx_engine::send_reports(int64_t now, bool all)
{
    tx_report r[tx_report_limiter::codes];
    const size_t n = d_reports.take(now, r, tx_report_limiter::codes, all);
    for (size_t i = 0; d_metadata && i < n; i++)
        d_metadata->tx_event(d_index, r[i].code, r[i].sample, r[i].time_ns, r[i].value);
}

} // namespace emu
} // namespace rdma
} // namespace gr
