/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_STREAM_IMPL_H
#define INCLUDED_RDMA_STREAM_TX_STREAM_IMPL_H

#include "../device/consumer_pacing.h"
#include "../device/shared_device.h"
#include "../nic/nic.h"
#include "../ring/ring_memory.h"
#include "../util/log.h"
#include "../util/rational_rate.h"
#include "controller_args.h"
#include "fetch_tracker.h"
#include "metadata_monitor.h"
#include "stream_args.h"
#include "stream_ownership.h"
#include "tx_burst_log.h"
#include "tx_burst_plan.h"
#include "tx_control_page.h"
#include "tx_watch.h"
#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/tx_stream.h>
#include <atomic>
#include <memory>
#include <set>

namespace gr {
namespace rdma {

//! The parameters a tx_stream settles on at construction (from args and the device).
struct tx_stream_plan {
    sample_format format = sample_format::sc16;
    double sample_rate = 0;
    uint64_t num_samples = 0;
    bool queued = false; //!< num_samples == tx_stream::queued: timed bursts
    unsigned stream_index = 0;
    unsigned path_mtu = 0;
    uint32_t payload_bytes = 0;
    uint32_t notify_interval = 16; //!< a fetch notification every N messages
    double latency_budget_s = 0.1; //!< the ring holds this much
    //! device_timeout=: the device is lost when silent this long (tx_watch::lost()).
    std::chrono::nanoseconds device_timeout{ 500000000 };
    uint32_t min_lead_ns = 200000;
    uint32_t max_lead_ns = 50000000;
    size_t message_items = 0;
    regs::tx_emulation emulation; //!< emulator only: tx_check=, tx_loss_ppm=, ...
    uint32_t rate_limit_kib = 0;  //!< TX_RATE_LIMIT (KiB/s of sample bytes); 0: none
    controller_args controller;   //!< ctrl_policy=, ctrl_period=: written at START
};

class tx_stream::impl
{
public:
    //! A stream of \p device, by \p args parsed and checked at the boundary
    //! (sdr::impl).
    impl(std::shared_ptr<shared_device> device,
         const tx_stream_config& config,
         const std::string& format,
         double rate,
         uint64_t num_samples);
    ~impl();

    void start(uint64_t start_time_ns); // 0: START + lead
    uint64_t device_time_now() { return d_device->device_time_ns(); }
    void stop();
    bool running() const { return d_running; }

    space wait_space(size_t min_items, std::chrono::microseconds timeout);
    void commit(size_t items);
    bool wait_fetched(std::chrono::microseconds timeout);
    bool wait_played(std::chrono::microseconds timeout);
    void begin_burst(uint64_t time_ns);
    void end_burst();
    bool in_burst() const { return d_bursts.in_burst(); }
    uint64_t committed() const { return d_committed; }
    uint64_t fetched() const { return d_fetch.fetched(); }
    accounting counts();
    bool poll_event(tx_event& out) { return d_watch->poll(out); }
    const std::string& error() const { return d_error; }
    std::map<std::string, uint64_t> read_counters();

    const tx_stream_plan& plan() const { return d_plan; }
    const ring_memory& ring() const { return *d_ring; }
    size_t ring_items() const { return d_ring->bytes() / rdma::item_size(d_plan.format); }
    unsigned max_reads() const { return d_max_reads; }
    uint64_t start_time_ns() const { return d_start_time_ns; }

private:
    static constexpr int max_receives = 256;
    static constexpr int cq_entries = 512; // > max_receives: the CQ is never full

    // tx_stream_setup.cc
    void attach_device(std::shared_ptr<shared_device> device,
                       const tx_stream_config& config);
    void settle_transport(const stream_settings& asked);
    void settle_fetching(const tx_stream_config& config);
    void register_ring();
    void make_watch();
    void settle_emulation(const tx_stream_config& config);
    void settle_metadata(const metadata_request& asked);
    void allocate_ring(const ring_args& asked);
    // tx_stream_impl.cc
    uint64_t program_device(uint64_t start_time_ns);
    uint32_t connect_qp(); // a new RC QP for the run, connected to the device's; its PSN
    tx_setup run_setup(uint64_t start_time_ns, uint32_t psn) const;
    bool settle_stop();
    void note_unseen_commits();
    void drain_notifications();
    void pump_completions();
    uint64_t fetch_bound() const;
    // tx_stream_bursts.cc: queued mode.
    void check_queued(const char* what) const;
    //! Give the device the burst entries it may have now (never waits).
    void push_bursts();
    bool push_one(const tx_burst_entry& e, const tx_burst_plan::decision& d);
    void note_refused(const std::string& why);
    //! Room in the host's list of entries, waiting (bounded) for the device's queue.
    void make_room();
    //! Let the device see what it may: everything committed, or (queued) up to the
    //! first END not pushed yet.
    void publish();
    void publish_items(uint64_t n); // the control page's committed = n, logged first
    uint64_t device_now_low() const;
    //! What the device will play of what it has seen (wait_played()).
    uint64_t playable() const;
    //! A new run's host state: nothing committed or fetched (primed from here on).
    void begin_fresh();
    void fail(tx_event::kind why, uint64_t value, const std::string& text);
    void fail_in_error(uint32_t status); // TX_STATUS reads ERROR

    logger_ptr d_logger;
    tx_stream_plan d_plan;
    rational d_rate;

    // Declared in creation order, destroyed in reverse (verbs lifetime rules: QP and
    // MRs before the PD, PD and CQ before the device, the memory after its MR).
    std::shared_ptr<shared_device> d_dev;
    std::shared_ptr<consumer_pacing> d_pacing; // emu_pace=consumer only (a test mode)
    std::unique_ptr<shared_device::tx_claim> d_claim; // ours while running
    device_controller* d_device = nullptr;
    device_info d_info;
    std::unique_ptr<stream_ownership> d_ownership; // claims it on the device per run
    link_state d_link;
    std::unique_ptr<nic::device> d_nic;
    std::unique_ptr<ring_memory> d_ring;
    tx_control_page d_page;
    std::unique_ptr<nic::protection_domain> d_pd;
    std::unique_ptr<nic::memory_region> d_ring_mr;
    std::unique_ptr<nic::memory_region> d_page_mr;
    std::unique_ptr<nic::completion_queue> d_cq;
    std::unique_ptr<nic::queue_pair> d_qp; // one per run
    std::unique_ptr<tx_watch> d_watch;     // after d_device: it uses it

    fetch_tracker d_fetch;
    std::atomic<bool> d_running{ false };
    uint64_t d_committed = 0;
    uint64_t d_published = 0; // what the control page says (queued: bounded by an END)

    // Queued mode (tx_stream_bursts.cc).
    tx_burst_plan d_bursts;
    tx_burst_log d_log; // what the watch checks the records against
    clock_estimate d_clock;
    int64_t d_refused_since = 0; // steady ns when the device's queue first said full
    int64_t d_last_try = 0;      // steady ns of the last push refused as full
    uint64_t d_pushes = 0;
    uint64_t d_refusals = 0;
    uint64_t d_late_starts = 0; // STARTs the host sent late on purpose (behind)
    uint64_t d_timed_items = 0; // items of ended bursts with a time (may be dropped)
    bool d_open_timed = false;  // the open burst's START had a time
    uint64_t d_open_first = 0;
    metadata_settings d_metadata;
    std::shared_ptr<metadata_intake> d_intake; // the device's TX records, when used
    uint32_t d_run = 0;
    unsigned d_max_reads = 1;
    int64_t d_start_host_ns = 0; // host time of the START command
    uint64_t d_start_time_ns = 0;
    uint64_t d_next_wr_id = 0;
    int d_receives_posted = 0;
    uint64_t d_notifications = 0;
    uint64_t d_foreign_completions = 0; // of a QP of an earlier run
    std::string d_error;
    bool d_final_known = false;
    bool d_fresh = false; // begin_fresh() since the last run: commits prime the next
    tx_device_counters d_final;
    uint64_t d_unseen = 0; // committed, never known to the device (host.unseen_commits)
};

} // namespace rdma
} // namespace gr

#endif
