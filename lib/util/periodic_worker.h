/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_PERIODIC_WORKER_H
#define INCLUDED_RDMA_UTIL_PERIODIC_WORKER_H

#include <gnuradio/rdma/cpu_accounting.h>
#include <condition_variable>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gr {
namespace rdma {

/*!
 * A thread of its own that calls a beat every period while started: the loop the
 * watches (device_watch, link_watch, tx_watch) share. The thread lives as long as the
 * object, named and charged to its role (thread_role_scope); start() and stop() only
 * say whether its beats run, so a stream can be started and stopped again without a
 * new thread.
 *
 * The beat runs without the worker's lock held: it may take its owner's locks, and
 * its owner's getters never wait for it. It must not throw, and must not call stop()
 * (stop() waits for the beat). Declare the worker as its owner's last member: it is
 * then destroyed first, and its thread joined while what the beat uses still exists.
 */
class periodic_worker
{
public:
    periodic_worker(thread_role role,
                    std::string name,
                    std::chrono::nanoseconds period,
                    std::function<void()> beat);
    //! Stops and joins the thread at once: the period wait is woken, not waited out.
    ~periodic_worker();
    periodic_worker(const periodic_worker&) = delete;
    periodic_worker& operator=(const periodic_worker&) = delete;

    //! Beat from the end of the period under way on.
    void start();
    //! No beat from now on; returns once none is under way. Idempotent.
    void stop();

private:
    void run();

    const thread_role d_role;
    const std::string d_name;
    const std::chrono::nanoseconds d_period;
    const std::function<void()> d_beat;

    std::mutex d_mutex;
    std::condition_variable d_wake;
    bool d_started = false;  // guarded by d_mutex
    bool d_shutdown = false; // guarded by d_mutex
    bool d_busy = false;     // guarded by d_mutex: a beat is under way
    std::thread d_thread;    // last: it uses everything above
};

} // namespace rdma
} // namespace gr

#endif
