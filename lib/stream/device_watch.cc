/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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
      d_lost_after_ns(std::chrono::nanoseconds(lost_after).count()),
      d_worker(thread_role::host, "rdma-watch", period, [this] { beat(); })
{
}

device_watch::~device_watch() = default;

int64_t device_watch::now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void device_watch::start()
{
    d_last_answer_ns = now_ns();
    d_failing = false;
    d_status = regs::status::running;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure.clear();
    }
    d_worker.start();
}

void device_watch::stop() { d_worker.stop(); }

device_watch::state device_watch::current(int64_t now) const
{
    if (d_failing.load(std::memory_order_relaxed) &&
        now - d_last_answer_ns.load(std::memory_order_relaxed) > d_lost_after_ns)
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

void device_watch::beat()
{
    try {
        // One exchange: the status word is all the watch needs, and each exchange
        // costs the host a few tens of microseconds.
        d_status = d_device.client().read32(regs::rx_reg(d_stream, regs::rx::status));
        d_last_answer_ns = now_ns();
        d_failing = false;
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure.clear();
    } catch (const std::exception& e) {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_failure = e.what();
        }
        d_failing = true;
    }
}

} // namespace rdma
} // namespace gr
