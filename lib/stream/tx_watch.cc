/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/host_time.h"
#include "../util/thread_role.h"
#include "tx_watch.h"

namespace gr {
namespace rdma {

tx_watch::tx_watch(device_controller& device,
                   unsigned stream,
                   std::chrono::milliseconds period,
                   clock_estimate clock)
    : d_device(device),
      d_stream(stream),
      d_period(period),
      d_clock(clock),
      d_thread([this] { run(); })
{
}

tx_watch::~tx_watch()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
        d_watching = false;
    }
    d_wake.notify_all();
    d_thread.join();
}

void tx_watch::start(const clock_estimate& clock, bool owned)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_clock = clock;
        d_last = tx_device_counters{};
        d_last.status = regs::status::running;
        d_head = d_count = 0;
        d_discarded = 0;
        d_failed = 0;
        d_seen_running = false;
        d_owned = owned;
        d_stopped = false;
        d_watching = true;
    }
    d_wake.notify_all();
}

void tx_watch::stop()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    d_watching = false;
    d_wake.notify_all();
    d_wake.wait(lock, [this] { return !d_busy; });
}

void tx_watch::push_locked(const tx_event& e)
{
    if (d_count == capacity) {
        d_discarded++;
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

void tx_watch::take(const tx_device_counters& c, int64_t host_now_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    take_locked(c, host_now_ns);
}

void tx_watch::take_locked(const tx_device_counters& c, int64_t host_now_ns)
{
    const uint64_t now = static_cast<uint64_t>(host_now_ns + d_clock.offset_ns);
    // The counters only grow within a run: a delta is what happened since the last
    // reading, so the reports add up to the counters.
    auto report = [&](tx_event::kind k, uint64_t before, uint64_t after) {
        if (after > before) {
            tx_event e;
            e.type = k;
            e.count = after - before;
            e.time_ns = now;
            push_locked(e);
        }
    };
    report(tx_event::kind::underflow, d_last.underflow_samples, c.underflow_samples);
    report(tx_event::kind::late, d_last.late_zero_samples, c.late_zero_samples);
    const bool done = c.status & regs::status::done;
    if (done && !(d_last.status & regs::status::done)) {
        tx_event e;
        e.type = tx_event::kind::burst_ack;
        e.count = c.samples_played;
        e.time_ns = now;
        push_locked(e);
    }
    if ((c.status & regs::status::error) && !(d_last.status & regs::status::error)) {
        tx_event e;
        e.type = tx_event::kind::stream_failed;
        e.value = c.status;
        e.time_ns = now;
        push_locked(e);
    }
    d_last = c;
}

void tx_watch::run()
{
    thread_role_scope role(thread_role::host, "rdma-tx-watch");
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_shutdown) {
        d_wake.wait_for(lock, d_period, [this] { return d_shutdown; });
        if (!d_watching || d_shutdown)
            continue;
        d_busy = true;
        const bool owned = d_owned;
        lock.unlock();
        try {
            const tx_device_counters c = d_device.read_tx_counters(d_stream);
            // A take-over stops this host's run, and the new owner may start its own
            // at once: the status alone would not tell. Read after the counters: still
            // this host's then, the counters were its run's (nobody gives it back).
            const bool ours =
                !owned || d_device.read_owner(stream_direction::tx, d_stream) ==
                              stream_owner::this_host;
            std::lock_guard<std::mutex> reading(d_mutex);
            if (!ours || d_stopped) {
                d_stopped = true; // what the counters say now is not this run's
            } else {
                take_locked(c, host_time_ns());
                // Only after a reading of this run saw it running: START may still be
                // on its way when the first reading is made.
                constexpr uint32_t live =
                    regs::status::running | regs::status::done | regs::status::error;
                if (c.status & regs::status::running)
                    d_seen_running = true;
                else if (d_seen_running && !(c.status & live))
                    d_stopped = true;
            }
        } catch (const std::exception&) {
            std::lock_guard<std::mutex> failed(d_mutex);
            d_failed++;
        }
        lock.lock();
        d_busy = false;
        d_wake.notify_all();
    }
}

} // namespace rdma
} // namespace gr
