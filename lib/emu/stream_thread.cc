/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/thread_role.h"
#include "stream_thread.h"

namespace gr {
namespace rdma {
namespace emu {

void stream_thread::launch(std::string name, run_function run)
{
    d_thread = std::thread(
        [this, name = std::move(name), run = std::move(run)] { loop(name, run); });
}

void stream_thread::shutdown()
{
    if (!d_thread.joinable())
        return;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
        d_running = false;
    }
    d_wake.notify_all();
    d_thread.join();
}

void stream_thread::wait_idle(lock_type& lock)
{
    d_wake.wait(lock, [this] { return d_idle; });
}

void stream_thread::begin(lock_type& lock)
{
    d_running = true;
    d_idle = false;
    lock.unlock();
    d_wake.notify_all();
}

void stream_thread::stop()
{
    lock_type lock(d_mutex);
    d_running = false;
    d_wake.notify_all();
    d_wake.wait(lock, [this] { return d_idle; });
}

void stream_thread::loop(const std::string& name, const run_function& run)
{
    thread_role_scope role(thread_role::device, name.c_str());
    lock_type lock(d_mutex);
    while (!d_shutdown) {
        if (!d_running) {
            d_idle = true;
            d_wake.notify_all();
            // A START sets d_idle false; a STOP that follows before this thread woke
            // sets d_running false again: wake for that too, to say idle once more.
            d_wake.wait(lock, [this] { return d_running || d_shutdown || !d_idle; });
            continue;
        }
        run(lock);
        d_running = false;
    }
    d_idle = true;
    d_wake.notify_all();
}

} // namespace emu
} // namespace rdma
} // namespace gr
