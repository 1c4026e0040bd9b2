/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/host_time.h"
#include "tx_watch.h"
#include <algorithm>
#include <thread>

namespace gr {
namespace rdma {

tx_watch::tx_watch(device_controller& device,
                   unsigned stream,
                   std::chrono::milliseconds period,
                   std::chrono::nanoseconds lost_after,
                   clock_estimate clock)
    : d_device(device),
      d_stream(stream),
      d_clock(clock),
      d_liveness(lost_after),
      d_worker(thread_role::host, "rdma-tx-watch", period, [this] { beat(); })
{
}

tx_watch::~tx_watch() = default;

void tx_watch::records(std::shared_ptr<metadata_intake> intake, const tx_burst_log* log)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_intake = std::move(intake);
    d_log = log;
}

void tx_watch::start(const clock_estimate& clock,
                     bool owned,
                     const tx_record_reports::run& run)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_clock = clock;
        d_records.start(run);
        d_gate.reset();
        d_error_status.store(0, std::memory_order_relaxed);
        d_start_host_ns = host_time_ns();
        d_last = tx_device_counters{};
        d_last.status = regs::status::running;
        d_head = d_count = 0;
        d_discarded = 0;
        d_failed = 0;
        d_seen_running = false;
        d_owned = owned;
        d_stopped = false;
    }
    d_liveness.reset(device_liveness::now_ns());
    d_worker.start();
}

void tx_watch::stop() { d_worker.stop(); }

void tx_watch::push_locked(const tx_event& e)
{
    if (d_count == capacity) {
        d_discarded++;
        // The report that ends the stream is never the one lost: a user who polls only
        // now and then (a device out of step for seconds fills the queue with underflow
        // reports) must still learn why the stream ended. It takes the newest slot.
        const bool ends = e.type == tx_event::kind::stream_failed ||
                          e.type == tx_event::kind::nic_error ||
                          e.type == tx_event::kind::stream_stopped ||
                          e.type == tx_event::kind::device_lost;
        if (ends)
            d_queue[(d_head + d_count - 1) % capacity] = e;
        return;
    }
    d_queue[(d_head + d_count) % capacity] = e;
    d_count++;
}

void tx_watch::push(const tx_event& e)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    push_locked(e);
}

bool tx_watch::poll(tx_event& out)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_count == 0)
        return false;
    out = d_queue[d_head];
    d_head = (d_head + 1) % capacity;
    d_count--;
    return true;
}

tx_device_counters tx_watch::last() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_last;
}

uint64_t tx_watch::discarded() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_discarded;
}

uint64_t tx_watch::failed_readings() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_failed;
}

uint64_t tx_watch::records_accepted() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_records.accepted();
}

uint64_t tx_watch::records_rejected() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_records.rejected();
}

uint64_t tx_watch::records_excess() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_gate.excess();
}

uint64_t tx_watch::device_now_bound(int64_t host_now_ns) const
{
    // The device's time now, at the latest: the clock estimate's upper end, a clock
    // drifting 100 ppm since START (clock_refiner::max_drift), and what the records'
    // own way to the host and a beat of this thread can add.
    constexpr int64_t slack_ns = 2000000;
    const int64_t drift = std::max<int64_t>(0, host_now_ns - d_start_host_ns) / 10000;
    const int64_t t = host_now_ns + d_clock.offset_ns +
                      static_cast<int64_t>(d_clock.error_ns) + drift + slack_ns;
    return t > 0 ? static_cast<uint64_t>(t) : 0;
}

size_t tx_watch::take_records_locked(int64_t host_now_ns)
{
    const uint64_t now = device_now_bound(host_now_ns);
    size_t total = 0, n;
    while ((n = d_intake->poll_tx(d_stream, d_batch.data(), d_batch.size())) > 0) {
        for (size_t i = 0; i < n; i++) {
            tx_event e;
            if (d_records.take(d_batch[i].record, now, *d_log, e))
                gate_locked(e);
        }
        total += n;
        if (n < d_batch.size())
            break;
    }
    tx_event e;
    while (d_records.release(*d_log, false, e))
        gate_locked(e);
    while (d_gate.release(d_last, e)) // what the latest counters cover
        push_locked(e);
    return total;
}

void tx_watch::abandon()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_gate.abandon();
}

void tx_watch::finish(const tx_device_counters& c, int64_t host_now_ns)
{
    std::unique_lock<std::mutex> lock(d_mutex);
    take_locked(c, host_now_ns);
    if (!d_intake)
        return;
    // The device sends what it had not reported at STOP: wait until the records add
    // up to the counters, or they are lost.
    const auto deadline = std::chrono::steady_clock::now() + records_wait;
    for (;;) {
        take_records_locked(host_time_ns());
        if (d_records.complete(c) || std::chrono::steady_clock::now() >= deadline)
            break;
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        lock.lock();
    }
    take_records_locked(host_time_ns()); // the last of them, if they came together
    tx_event e;
    while (d_records.release(*d_log, true, e))
        gate_locked(e);
    while (d_gate.release(c, e))
        push_locked(e);
    tx_event rest[4];
    const size_t n = d_gate.settle(c, rest);
    for (size_t i = 0; i < n; i++)
        push_locked(rest[i]); // item and time_ns 0: no record said which or when
}

void tx_watch::gate_locked(const tx_event& e)
{
    if (d_gate.hold(e))
        push_locked(e); // a kind no counter sums
}

void tx_watch::take_locked(const tx_device_counters& c, int64_t host_now_ns)
{
    const uint64_t now = static_cast<uint64_t>(host_now_ns + d_clock.offset_ns);
    auto event = [&](tx_event::kind k) {
        tx_event e;
        e.type = k;
        e.time_ns = now;
        return e;
    };
    // The device reports the stream in error: the stream ends on it (tx_stream's
    // pump_completions() reports it, with the reason, once).
    if (c.status & regs::status::error)
        d_error_status.store(c.status, std::memory_order_relaxed);
    if (d_intake) { // the records report the rest
        d_last = c;
        return;
    }
    // The counters only grow within a run: a delta is what happened since the last
    // reading, so the reports add up to the counters.
    auto report = [&](tx_event::kind k, uint64_t before, uint64_t after) {
        if (after > before) {
            tx_event e = event(k);
            e.count = after - before;
            push_locked(e);
        }
    };
    report(tx_event::kind::underflow, d_last.underflow_samples, c.underflow_samples);
    report(tx_event::kind::late, d_last.late_zero_samples, c.late_zero_samples);
    if (c.has_burst_counters) {
        // TX_BURSTS_DONE and TX_TIME_ERRORS are 32-bit: they wrap.
        const uint32_t done = static_cast<uint32_t>(c.bursts_done - d_last.bursts_done);
        const uint32_t late = static_cast<uint32_t>(c.time_errors - d_last.time_errors);
        if (done) {
            tx_event e = event(tx_event::kind::burst_ack);
            e.bursts = done;
            push_locked(e);
        }
        if (late || c.dropped_samples > d_last.dropped_samples) {
            tx_event e = event(tx_event::kind::time_error);
            e.bursts = late;
            e.count =
                c.dropped_samples - std::min(c.dropped_samples, d_last.dropped_samples);
            push_locked(e);
        }
    } else if ((c.status & regs::status::done) && !(d_last.status & regs::status::done)) {
        tx_event e = event(tx_event::kind::burst_ack); // a finite run's one burst
        e.count = c.samples_played;
        e.bursts = 1;
        push_locked(e);
    }
    d_last = c;
}

void tx_watch::beat()
{
    bool owned;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        owned = d_owned;
    }
    try {
        const tx_device_counters c = d_device.read_tx_counters(d_stream);
        // A take-over stops this host's run, and the new owner may start its own
        // at once: the status alone would not tell. Read after the counters: still
        // this host's then, the counters were its run's (nobody gives it back).
        const bool ours = !owned || d_device.read_owner(stream_direction::tx, d_stream) ==
                                        stream_owner::this_host;
        d_liveness.answered(device_liveness::now_ns());
        std::lock_guard<std::mutex> reading(d_mutex);
        if (!ours || d_stopped) {
            d_stopped = true; // what the counters say now is not this run's
        } else {
            take_locked(c, host_time_ns());
            if (d_intake)
                take_records_locked(host_time_ns());
            // Only after a reading of this run saw it running: START may still be
            // on its way when the first reading is made.
            constexpr uint32_t live =
                regs::status::running | regs::status::done | regs::status::error;
            if (c.status & regs::status::running)
                d_seen_running = true;
            else if (d_seen_running && !(c.status & live))
                d_stopped = true;
        }
    } catch (const axioe::error&) {
        // An answer, if not the one asked for: the device is there.
        d_liveness.answered(device_liveness::now_ns());
        std::lock_guard<std::mutex> failed(d_mutex);
        d_failed++;
    } catch (const std::exception& e) {
        d_liveness.failed(e.what());
        std::lock_guard<std::mutex> failed(d_mutex);
        d_failed++;
    }
}

} // namespace rdma
} // namespace gr
