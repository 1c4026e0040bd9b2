/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_STREAM_THREAD_H
#define INCLUDED_RDMA_EMU_STREAM_THREAD_H

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The START/STOP handshake between a stream's control side (AXIoE requests, on any
 * thread) and the one thread that sends the stream. START hands over a run only once
 * the thread is idle; STOP returns only once the thread has left the run, also when it
 * comes before the thread saw the START. The run itself is the owner's: a function
 * called with the lock held, which returns soon after running() turns false (it waits
 * with sleep(), which a STOP cuts short).
 */
class stream_thread
{
public:
    using lock_type = std::unique_lock<std::mutex>;
    using run_function = std::function<void(lock_type&)>;

    stream_thread() = default;
    ~stream_thread() { shutdown(); }
    stream_thread(const stream_thread&) = delete;
    stream_thread& operator=(const stream_thread&) = delete;

    //! Start the thread, in role device and named \p name. Call it once everything the
    //! run uses exists (last in the owner's constructor).
    void launch(std::string name, run_function run);
    //! End the thread. Call it before anything the run uses goes (first in the owner's
    //! destructor).
    void shutdown();

    lock_type lock() { return lock_type(d_mutex); }
    //! Whether a run is on; read it with the lock held.
    bool running() const { return d_running; }
    //! With the lock held: wait until the thread has left its last run.
    void wait_idle(lock_type& lock);
    //! With the lock held and the thread idle: hand it a run. Releases the lock.
    void begin(lock_type& lock);
    //! End the run, if any; returns once the thread has left it.
    void stop();
    //! For the run, with the lock held: wait up to \p timeout, or until a STOP or a
    //! poke().
    template <typename duration>
    void sleep(lock_type& lock, duration timeout)
    {
        d_wake.wait_for(lock, timeout, [this] { return !d_running || d_poked; });
        d_poked = false;
    }
    //! With the lock held: cut the run's sleep() short, so that it looks again at what
    //! changed (a STOP scheduled for a sample), without ending the run.
    void poke(lock_type&)
    {
        d_poked = true;
        d_wake.notify_all();
    }

private:
    void loop(const std::string& name, const run_function& run);

    std::mutex d_mutex;
    std::condition_variable d_wake;
    bool d_running = false;  // guarded by d_mutex
    bool d_shutdown = false; // guarded by d_mutex
    bool d_idle = true;      // guarded by d_mutex: the thread is not in a run
    bool d_poked = false;    // guarded by d_mutex
    std::thread d_thread;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
