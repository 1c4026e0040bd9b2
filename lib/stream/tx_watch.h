/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_WATCH_H
#define INCLUDED_RDMA_STREAM_TX_WATCH_H

#include "../device/device_controller.h"
#include "../device/metadata_intake.h"
#include "../util/periodic_worker.h"
#include "device_liveness.h"
#include "tx_burst_log.h"
#include "tx_record_reports.h"
#include "tx_report_gate.h"
#include <gnuradio/rdma/tx_stream.h>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

namespace gr {
namespace rdma {

/*!
 * The device side of a TX stream as the host hears of it: a thread ("rdma-tx-watch",
 * charged to the host) reads the stream's status and counters over AXIoE every period.
 * With the device's TX records (records(): CAP_TX_BURSTS and the metadata channel) it
 * takes the stream's records from the metadata intake in the same beat and makes them
 * the reports (tx_record_reports: the device's items and times, checked), and after
 * STOP reports what the final counters say the records did not (finish()). Without,
 * it turns what changed in the counters into reports: the underflow and late zeros
 * played since the last reading (so the reports' counts add up to the device's
 * counters exactly), bursts done or dropped, an error. The data path only pops
 * reports (poll()); it never waits on the network. Each reading is an exchange with the
 * device from the stream's AXIoE client, so it also renews the stream's ownership lease
 * (stream_ownership): every period (20 ms) is within a quarter of the shortest lease (100
 * ms).
 *
 * A device that no longer answers is lost() on the same evidence as an RX stream's
 * (device_liveness): silent for lost_after, its last reading failed.
 *
 * A run that is no longer this host's is seen within a reading, and stopped() says so:
 * the device stopped it without its burst done or an error (this host was silent for
 * its lease, the device restarted), or, for a stream this host claimed, TX_OWNER says
 * it is no longer this host's (another host took it over, and may be running it).
 */
class tx_watch
{
public:
    tx_watch(device_controller& device,
             unsigned stream,
             std::chrono::milliseconds period,
             std::chrono::nanoseconds lost_after,
             clock_estimate clock);
    ~tx_watch();
    tx_watch(const tx_watch&) = delete;
    tx_watch& operator=(const tx_watch&) = delete;

    //! Report from the TX records of \p intake (TX stream \p stream's inbox), checked
    //! against \p log. Before start(); null: from the counters.
    void records(std::shared_ptr<metadata_intake> intake, const tx_burst_log* log);
    //! Watch a new run (after START): counters start from zero. \p owned: this host
    //! claimed the stream for the run (stream_ownership), so TX_OWNER is read too.
    //! \p run: what the records are checked against (with records()).
    void start(const clock_estimate& clock,
               bool owned,
               const tx_record_reports::run& run = {});
    //! Stop watching; returns once the thread is idle.
    void stop();
    /*!
     * After STOP (the watch stopped), the final counters \p c: reports as a periodic
     * reading would; with records, the records still on their way (waited for until
     * they add up to \p c, at most records_wait), then what the counters say beyond
     * them (tx_record_reports::reconcile()).
     */
    void finish(const tx_device_counters& c, int64_t host_now_ns);
    //! The run ended without final counters: the reports still held never go out
    //! (counted in records_excess()).
    void abandon();
    static constexpr std::chrono::milliseconds records_wait{ 100 };
    //! Queue a report from elsewhere (START refused, the NIC failed the QP).
    void push(const tx_event& e);

    bool poll(tx_event& out);
    //! The last reading (zeros before the first).
    tx_device_counters last() const;
    //! Reports not queued because the queue was full.
    uint64_t discarded() const;
    //! Readings that failed (the device did not answer).
    uint64_t failed_readings() const;
    //! TX records taken as reports, and rejected as beyond what the device can have
    //! done; samples of accepted records' reports the counters never covered (held,
    //! then dropped: tx_report_gate).
    uint64_t records_accepted() const;
    uint64_t records_rejected() const;
    uint64_t records_excess() const;
    bool uses_records() const { return d_intake != nullptr; }
    //! A reading found the run stopped under it (neither done nor in error) after one
    //! had found it running. Cheap: for the data path.
    bool stopped() const { return d_stopped.load(std::memory_order_relaxed); }
    //! TX_STATUS of a reading that found the stream in error (0: none this run).
    //! Cheap: for the data path.
    uint32_t error_status() const { return d_error_status.load(std::memory_order_relaxed); }
    //! The device has not answered for lost_after and the last reading failed, as of
    //! \p now_ns (device_liveness::now_ns()). Cheap: for the data path.
    bool lost(int64_t now_ns) const { return d_liveness.lost(now_ns); }
    const device_liveness& liveness() const { return d_liveness; }

private:
    static constexpr size_t capacity = 256;
    //! One reading: the counters (and TX_OWNER), then reports from them.
    void beat();
    void push_locked(const tx_event& e);
    void gate_locked(const tx_event& e); // a record's report, to d_gate
    void take_locked(const tx_device_counters& c, int64_t host_now_ns);
    //! Drain the stream's inbox into reports; returns the records taken.
    size_t take_records_locked(int64_t host_now_ns);
    uint64_t device_now_bound(int64_t host_now_ns) const; // under d_mutex

    device_controller& d_device;
    const unsigned d_stream;

    mutable std::mutex d_mutex;
    clock_estimate d_clock;                 // guarded by d_mutex
    tx_device_counters d_last;              // guarded by d_mutex
    std::array<tx_event, capacity> d_queue; // guarded by d_mutex
    size_t d_head = 0, d_count = 0;         // guarded by d_mutex
    uint64_t d_discarded = 0;               // guarded by d_mutex
    uint64_t d_failed = 0;                  // guarded by d_mutex
    bool d_seen_running = false;            // guarded by d_mutex: a reading of this run
    bool d_owned = false;                   // guarded by d_mutex
    std::shared_ptr<metadata_intake> d_intake; // set before start()
    const tx_burst_log* d_log = nullptr;
    tx_record_reports d_records;                                         // guarded
    tx_report_gate d_gate; // guarded: the records' reports, out once counters cover them
    std::array<received_record, metadata_receiver::max_records> d_batch; // guarded
    int64_t d_start_host_ns = 0;                                         // guarded
    std::atomic<bool> d_stopped{ false };
    std::atomic<uint32_t> d_error_status{ 0 };
    device_liveness d_liveness;
    periodic_worker d_worker; // last: its beat uses everything above
};

} // namespace rdma
} // namespace gr

#endif
