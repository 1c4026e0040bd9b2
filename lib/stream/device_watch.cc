/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/thread_role.h"
#include "device_watch.h"
#include <exception>

namespace gr {
namespace rdma {

device_watch::device_watch(device_controller& device,
                           unsigned stream,
                           std::chrono::milliseconds period,
                           std::chrono::milliseconds lost_after)
    : d_device(device),
      d_stream(stream),
      d_period(period),
      d_lost_after_ns(std::chrono::nanoseconds(lost_after).count()),
      d_thread([this] { run(); })
{
}

device_watch::~device_watch()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
        d_watching = false;
    }
    d_wake.notify_all();
    d_thread.join();
}

int64_t device_watch::now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void device_watch::start()
{
    d_last_answer_ns = now_ns();
    d_status = regs::status::running;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure.clear();
        d_watching = true;
    }
    d_wake.notify_all();
}

void device_watch::stop()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    d_watching = false;
    d_wake.notify_all();
    d_wake.wait(lock, [this] { return !d_busy; });
}

device_watch::state device_watch::current(int64_t now) const
{
    if (now - d_last_answer_ns.load(std::memory_order_relaxed) > d_lost_after_ns)
        return state::lost;
    const uint32_t status = d_status.load(std::memory_order_relaxed);
    if (status & regs::status::error)
        return state::stream_failed;
    if (!(status & (regs::status::running | regs::status::done)))
        return state::stream_stopped;
    return state::ok;
}

std::string device_watch::last_failure() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_failure;
}

void device_watch::run()
{
    thread_role_scope role(thread_role::host, "rdma-watch");
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_shutdown) {
        d_wake.wait_for(lock, d_period, [this] { return d_shutdown; });
        if (!d_watching || d_shutdown)
            continue;
        d_busy = true;
        lock.unlock();
        beat();
        lock.lock();
        d_busy = false;
        d_wake.notify_all();
    }
}

void device_watch::beat()
{
    try {
        // One exchange: the status word is all the watch needs, and each exchange
        // costs the host a few tens of microseconds.
        d_status = d_device.client().read32(regs::rx_reg(d_stream, regs::rx::status));
        d_last_answer_ns = now_ns();
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure.clear();
    } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure = e.what();
    }
}

} // namespace rdma
} // namespace gr
