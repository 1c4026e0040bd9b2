/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "periodic_worker.h"
#include "thread_role.h"
#include <utility>

namespace gr {
namespace rdma {

periodic_worker::periodic_worker(thread_role role,
                                 std::string name,
                                 std::chrono::nanoseconds period,
                                 std::function<void()> beat)
    : d_role(role),
      d_name(std::move(name)),
      d_period(period),
      d_beat(std::move(beat)),
      d_thread([this] { run(); })
{
}

periodic_worker::~periodic_worker()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
        d_started = false;
    }
    d_wake.notify_all();
    d_thread.join();
}

void periodic_worker::start()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_started = true;
    }
    d_wake.notify_all();
}

void periodic_worker::stop()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    d_started = false;
    d_wake.notify_all();
    d_wake.wait(lock, [this] { return !d_busy; });
}

void periodic_worker::run()
{
    thread_role_scope role(d_role, d_name.c_str());
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_shutdown) {
        // Only shutdown cuts the wait short: a start() does not make a beat early.
        d_wake.wait_for(lock, d_period, [this] { return d_shutdown; });
        if (!d_started || d_shutdown)
            continue;
        d_busy = true;
        lock.unlock();
        d_beat();
        lock.lock();
        d_busy = false;
        d_wake.notify_all();
    }
}

} // namespace rdma
} // namespace gr
