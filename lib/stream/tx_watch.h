/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_WATCH_H
#define INCLUDED_RDMA_STREAM_TX_WATCH_H

#include "../device/device_controller.h"
#include <gnuradio/rdma/tx_stream.h>
#include <condition_variable>
#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace gr {
namespace rdma {

/*!
 * The device side of a TX stream as the host hears of it: a thread ("rdma-tx-watch",
 * charged to the host) reads the stream's status and counters over AXIoE every period
 * and turns what changed into reports: the underflow and late zeros played since the
 * last reading (so the reports' counts add up to the device's counters exactly), the
 * end of a burst, an error. The data path only pops reports (poll()); it never waits on
 * the network. Each reading also renews the stream's ownership lease.
 */
class tx_watch
{
public:
    tx_watch(device_controller& device,
             unsigned stream,
             std::chrono::milliseconds period,
             clock_estimate clock);
    ~tx_watch();
    tx_watch(const tx_watch&) = delete;
    tx_watch& operator=(const tx_watch&) = delete;

    //! Watch a new run (after START): counters start from zero.
    void start(const clock_estimate& clock);
    //! Stop watching; returns once the thread is idle.
    void stop();
    //! Take in a reading made elsewhere (the final one after STOP): reports as a
    //! periodic reading would.
    void take(const tx_device_counters& c, int64_t host_now_ns);
    //! Queue a report from elsewhere (START refused, the NIC failed the QP).
    void push(const tx_event& e);

    bool poll(tx_event& out);
    //! The last reading (zeros before the first).
    tx_device_counters last() const;
    //! Reports not queued because the queue was full.
    uint64_t discarded() const;
    //! Readings that failed (the device did not answer).
    uint64_t failed_readings() const;

private:
    static constexpr size_t capacity = 256;
    void run();
    void push_locked(const tx_event& e);

    device_controller& d_device;
    const unsigned d_stream;
    const std::chrono::milliseconds d_period;

    mutable std::mutex d_mutex;
    std::condition_variable d_wake;
    clock_estimate d_clock;                 // guarded by d_mutex
    tx_device_counters d_last;              // guarded by d_mutex
    std::array<tx_event, capacity> d_queue; // guarded by d_mutex
    size_t d_head = 0, d_count = 0;         // guarded by d_mutex
    uint64_t d_discarded = 0;               // guarded by d_mutex
    uint64_t d_failed = 0;                  // guarded by d_mutex
    bool d_watching = false;                // guarded by d_mutex
    bool d_shutdown = false;                // guarded by d_mutex
    bool d_busy = false;                    // guarded by d_mutex
    std::thread d_thread;                   // last: it uses everything above
};

} // namespace rdma
} // namespace gr

#endif
