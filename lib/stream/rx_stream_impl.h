/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_RX_STREAM_IMPL_H
#define INCLUDED_RDMA_STREAM_RX_STREAM_IMPL_H

#include "../emu/emulator.h"
#include "../emu/null_device.h"
#include "../nic/nic.h"
#include "../ring/ring_memory.h"
#include "../util/log.h"
#include "device_args.h"
#include "device_controller.h"
#include "latency_probe.h"
#include "loss_tracker.h"
#include "metadata_monitor.h"
#include "progress_tracker.h"
#include "stream_clock.h"
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <atomic>
#include <chrono>
#include <memory>

namespace gr {
namespace rdma {

//! The parameters an rx_stream settles on at construction (from args and the device).
struct rx_stream_plan {
    sample_format format = sample_format::sc16;
    double sample_rate = 0;
    uint64_t num_samples = 0;
    unsigned stream_index = 0;
    unsigned path_mtu = 0;
    uint32_t payload_bytes = 0;
    uint32_t notify_interval = 16; //!< 0: no notifications, the clock alone tells
    double latency_budget_s = 0.1;
    double grace_s = 0.02;    //!< how late a packet may land and still count as on time
    size_t message_items = 0; //!< items per message: the loss tracker's granularity
    bool rc = false;          //!< transport=rc: the device retransmits what the NIC NAKs
    uint32_t retx_window_bytes = 4u << 20; //!< RC: the device's retransmit window
    //! Hand out new items at most once per this many ns (0: as soon as they are final).
    int64_t work_interval_ns = 0;
    bool ownership = false; //!< the device has cap::ownership: each run claims the stream
    uint32_t lease_ms = 5000; //!< lease=: the device frees the stream after this silence
    bool take_over =
        false; //!< take_over=1: claim the stream even if another host owns it
};

class rx_stream::impl
{
public:
    impl(const std::string& args,
         const std::string& format,
         double rate,
         uint64_t num_samples);
    ~impl();

    void start();
    void stop();
    bool running() const { return d_running; }
    size_t
    wait_items(uint64_t next, uint64_t released, std::chrono::microseconds timeout);
    void commit(uint64_t next, size_t count);
    bool poll_event(rx_event& out);
    bool end_of_stream(uint64_t next) const;
    accounting counts() const;
    chunk recv(size_t max_items, std::chrono::microseconds timeout);
    void release(size_t items);
    std::map<std::string, uint64_t> read_counters();
    std::vector<injected_fault> read_injected_faults();

    const rx_stream_plan& plan() const { return d_plan; }
    const ring_memory& ring() const { return *d_ring; }
    size_t ring_items() const { return d_ring->bytes() / rdma::item_size(d_plan.format); }
    uint64_t start_time_ns() const { return d_start_time_ns; }

private:
    static constexpr int max_receives = 512;
    static constexpr int cq_entries = 1024; // > max_receives: the CQ is never full
    // How long read_counters() waits for a device that sent a whole burst to say done.
    static constexpr std::chrono::milliseconds final_counters_timeout{ 1000 };
    // How long the end of a burst waits for the completion of its last message.
    static constexpr std::chrono::milliseconds last_notification_timeout{ 20 };

    void open_device(const device_args& args);
    void parse_impairments(const device_args& args);
    void settle_grace(const device_args& args);
    void settle_transport(const device_args& args);
    void settle_work_interval(const device_args& args);
    void settle_ownership(const device_args& args, const std::string& type);
    void claim();
    void start_run();
    void release_quietly();
    void allocate_ring(const device_args& args);
    void drain_completions();
    void pump_completions();
    rx_device_counters read_device_counters();
    void await_last_notification();
    void update_progress(uint64_t released);
    bool gathering(uint64_t next, uint64_t ready, int64_t now) const;
    void keep_lease();

    logger_ptr d_logger;
    rx_stream_plan d_plan;
    emulated_signal d_signal;
    emulated_impairments d_impairments;

    // Declared in creation order, destroyed in reverse (verbs lifetime rules: QP and
    // MR before PD, PD and CQ before the device, the ring after its registration).
    std::unique_ptr<emu::emulator> d_emulator;       // type=emu only
    std::unique_ptr<emu::null_device> d_null_device; // type=null only (benchmarks)
    std::unique_ptr<device_controller> d_device;
    device_info d_info;
    link_state d_link;
    std::unique_ptr<nic::device> d_nic;
    std::unique_ptr<ring_memory> d_ring;
    std::unique_ptr<nic::protection_domain> d_pd;
    std::unique_ptr<nic::memory_region> d_mr;
    std::unique_ptr<nic::completion_queue> d_cq;
    std::unique_ptr<nic::queue_pair> d_qp; // one per run

    progress_tracker d_progress;                  // immediate data -> landed frontier
    std::unique_ptr<loss_tracker> d_tracker;      // placeholders, gaps, overruns
    std::unique_ptr<metadata_monitor> d_metadata; // metadata channel (docs/metadata.md)
    metadata_settings d_metadata_settings;
    std::unique_ptr<latency_probe> d_probe; // latency_probe=1 only (benchmarks)
    stream_clock d_clock;
    clock_estimate d_clock_estimate;
    std::atomic<bool> d_running{ false };
    uint64_t d_start_time_ns = 0;
    uint64_t d_next_wr_id = 0;
    int d_receives_posted = 0; // posted and not yet completed
    uint64_t d_completions = 0;
    bool d_last_notification_awaited = false;
    int64_t d_last_handout_ns = INT64_MIN / 2; // host time wait_items last had items
    std::chrono::steady_clock::time_point d_next_renewal; // the lease's next renewal
    uint64_t d_read_position = 0; // standalone consumer (recv/release)
    uint64_t d_handed_out = 0;    // standalone consumer: committed so far
    size_t d_last_chunk = 0;
};

} // namespace rdma
} // namespace gr

#endif
