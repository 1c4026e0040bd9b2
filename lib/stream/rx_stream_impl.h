/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_RX_STREAM_IMPL_H
#define INCLUDED_RDMA_STREAM_RX_STREAM_IMPL_H

#include "../device/shared_device.h"
#include "../nic/nic.h"
#include "../ring/ring_memory.h"
#include "../util/log.h"
#include "consumer_gate.h"
#include "controller_args.h"
#include "destination_progress.h"
#include "device_watch.h"
#include "epoch_follower.h"
#include "event_queue.h"
#include "latency_probe.h"
#include "link_accounting.h"
#include "link_args.h"
#include "link_liveness.h"
#include "link_watch.h"
#include "loss_tracker.h"
#include "metadata_monitor.h"
#include "path_delay.h"
#include "path_lateness.h"
#include "progress_tracker.h"
#include "share_args.h"
#include "share_layout.h"
#include "stream_args.h"
#include "stream_clock.h"
#include "stream_ownership.h"
#include "tune_tracker.h"
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <atomic>
#include <chrono>
#include <deque>
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
    //! on_device_loss=: end the run when the device is lost (else wait for it, and
    //! continue the stream with a new run of the device if its run is gone).
    bool end_on_device_loss = true;
    //! device_timeout=: the device is lost when it has not answered for this long.
    int64_t device_timeout_ns = 500000000;
    //! rx_stream::queued: the device sends the bursts queue_burst() pushes
    //! (num_samples is then the current burst's, 0 between bursts).
    bool queued = false;
    uint32_t rate_limit_kib = 0; //!< RX_RATE_LIMIT (KiB/s of sample bytes); 0: none
    controller_args controller;  //!< ctrl_policy=, ctrl_period=: written at START
};

class rx_stream::impl
{
public:
    //! A stream of \p device, by \p args parsed and checked at the boundary
    //! (sdr::impl).
    impl(std::shared_ptr<shared_device> device,
         const rx_stream_config& config,
         const std::string& format,
         double rate,
         uint64_t num_samples);
    ~impl();

    void start(uint64_t start_time_ns); // 0: now
    void claim_and_start(uint64_t start_time_ns); // start() but for its failure's books
    uint64_t device_time_now();
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

    const std::string& error() const { return d_error; }
    void keep_items_in_slots() { d_items_in_slots = true; }
    // rx_stream_links.cc: a stream over several destinations (docs/links.md).
    bool several_links() const { return d_link_plan.several(); }
    rx_stream::rate_change change_rate(double rate, uint64_t at_item, uint64_t at_ns);
    // rx_stream_queue.cc: queued bursts (docs/radio.md, "Burst queue").
    uint64_t queue_burst(uint64_t num_samples, uint64_t at_ns, uint64_t first_item);
    const std::string& device_note() const { return d_device_note; }

    const rx_stream_plan& plan() const { return d_plan; }
    const ring_memory& ring() const { return *d_ring; }
    size_t ring_items() const { return d_ring->bytes() / rdma::item_size(d_plan.format); }
    uint64_t start_time_ns() const { return d_start_time_ns; }
    const share_layout& share() const { return d_share; }

private:
    static constexpr int max_receives = 512;
    // IPv4, UDP, BTH, RETH, ImmDt, ICRC around a packet of the path MTU.
    static constexpr unsigned frame_overhead = 20 + 8 + 12 + 16 + 4 + 4;
    static constexpr int cq_entries = 1024; // > max_receives: the CQ is never full
    // How long read_counters() waits for a device that sent a whole burst to say done.
    static constexpr std::chrono::milliseconds final_counters_timeout{ 1000 };
    // How long the end of a burst waits for the completion of its last message.
    static constexpr std::chrono::milliseconds last_notification_timeout{ 20 };
    // RC: how long the end of a burst waits for the records of samples sent as zeros.
    static constexpr std::chrono::milliseconds substitution_records_wait{ 200 };
    // emu_pace=consumer: how long a paced device must have sent nothing before what it
    // sent is final without a notification.
    static constexpr int64_t paced_quiet_ns = 1000000000;

    // rx_stream_device.cc: the device's side of a run, and what happens when it fails.
    uint64_t program_device(uint64_t start_time_ns, uint64_t first_message = 0);
    uint32_t connect_qp(); // a new QP for the run, connected to the device's; its PSN
    rx_setup run_setup(uint64_t start_time_ns, uint32_t psn) const;
    void program_run_extras(uint64_t first_message); // the run's registers beyond RX_*
    bool settle_stop();
    bool send_stop(const std::string& where); // false: the stream is not ours
    void read_final_books(const std::string& where);
    bool watch_device();
    void fail_stream();             // the device reports the stream in error
    bool on_stream_gone();          // answering, but the run is gone: end it or re-arm
    bool owns_stream() const;       // this host claimed the stream itself (not a share)
    std::string stopped_why() const; // why the device may have stopped our run
    void begin_outage(int64_t now_ns);
    void end_outage(int64_t now_ns);
    uint64_t rate_need() const; // sample bytes/s the device must let through
    void report_rate_hold();
    bool device_restarted();  // after STOP: the counters are not this run's (noted)
    void note_not_emitted(); // after stopped(): say what was re-booked
    void fail(rx_event::reason why, uint64_t value, const std::string& text);
    //! The stream stopped because a share's host left (RX_STOP_CAUSE): reported, the
    //! run failed; false when that is not why.
    bool share_left();
    void rearm();
    uint64_t end_old_run(); // what it emitted, to the sample when the device knows
    uint64_t rearm_base(int64_t device_now, uint64_t emitted_upto) const;
    uint64_t restart_at(uint64_t base, uint64_t emitted_upto, int64_t host_now);
    // rx_stream_links.cc: destinations 1.. of a stream over several links, each its own
    // QP on the stream's NIC (docs/links.md, "Host side"). Destination 0 is d_qp, as
    // for every stream; with one link none of this runs.
    void settle_links(const link_plan& asked);
    void check_links_plan() const;
    void open_destination_nics(const nic_config& nic);
    void open_destinations(uint32_t device_qpn);
    void pump_destination_cqs();
    void wait_completions(std::chrono::microseconds wait);
    // wait_items: while the run is over or the device lost (true: give up now).
    bool run_ended_or_due(std::chrono::steady_clock::time_point deadline);
    void await_progress(uint64_t next, std::chrono::microseconds left);
    void program_destinations();
    void close_destinations();
    void reset_link_progress();
    //! d_link_weights as the schedule takes them (destinations past them: 0).
    std::array<uint16_t, regs::link_schedule::max_destinations>
    programmed_weights() const;
    // A new run of a stream over several links (rate change, re-arm): the device must
    // number its messages from \p first_message (CAP_LINKS_CONTINUE).
    void check_links_continue(const char* what) const;
    void reset_destination_qps();
    void continue_links(uint64_t first_message);
    //! The message numbers a new run over several links may start at: multiples.
    uint64_t links_first_step() const;
    //! The destination whose QP a completion polled from d_cq belongs to; -1: a QP of
    //! an earlier run.
    int destination_on_stream_cq(uint32_t qpn) const;
    void on_destination_completion(unsigned d,
                                   const nic::work_completion& wc,
                                   uint64_t produced);
    void post_destination_receives();
    void note_links_final(uint64_t final_upto);
    void update_links_unwaited();
    void export_link_counters(std::map<std::string, uint64_t>& out) const;
    void export_link_rc_counters(std::map<std::string, uint64_t>& out);
    // Failover (rx_stream_failover.cc): the epochs the device begins, followed.
    void make_link_watch();
    void configure_emulated_links();
    void start_link_watch();
    //! Links judged silent from \p from_ns on (not before now).
    void reset_liveness(int64_t from_ns);
    void stop_link_watch();
    void follow_links();
    void report_change(const epoch_follower::change& c);
    void report_link(rx_event::reason why,
                     const regs::epoch_values& e,
                     uint64_t value,
                     uint64_t count);
    uint64_t known_final(uint64_t final_upto) const;
    void pass_links_final(uint64_t final_upto);
    // rx_stream_shares.cc: one share of a stream split over several hosts
    // (docs/links.md, "Several hosts").
    void settle_shares(const rx_stream_config& config);
    bool follows_share() const;
    void choose_share_link();
    unsigned share_destination() const;
    void await_share_layout();
    void split_stream();
    void ensure_unsplit();
    void await_shares_ready();
    uint64_t program_share(uint32_t psn);
    rx_device_counters read_share_counters();
    bool settle_share_stop();
    uint32_t await_stream_end(uint32_t status);
    void export_share_counters(std::map<std::string, uint64_t>& out) const;
    // rx_stream_rate.cc: a rate change, advanced by the consumer.
    //! A warning when \p rate would space notifications beyond the grace period.
    void warn_if_notifications_sparse(double rate) const;
    void check_rate_change(double rate) const; // refuses what cannot change, naming why
    uint64_t rate_change_item(uint64_t at_item) const; // where the new run begins
    void advance_rate_change();
    void restart_at_new_rate();
    void report(rx_event::reason why, uint64_t count = 0, uint64_t value = 0);
    uint64_t grace_ns() const { return static_cast<uint64_t>(d_plan.grace_s * 1e9); }

    // rx_stream_setup.cc: construction, in the order the constructor calls them.
    void plan_run(const rx_stream_config& config,
                  const std::string& format,
                  double rate,
                  uint64_t num_samples);
    void attach_device(std::shared_ptr<shared_device> device,
                       const rx_stream_config& config);
    void check_test_modes(const rx_stream_config& config);
    void register_ring();
    void settle_metadata(const metadata_request& asked);
    void make_watches();
    void open_nic_for(const nic_config& config);
    void settle_grace(const receive_settings& asked);
    void settle_transport(const rx_stream_config& config);
    void settle_work_interval(const receive_settings& asked);
    void start_run(uint64_t start_time_ns);
    void allocate_ring(const ring_args& asked);
    void drain_completions();
    void pump_completions();
    void on_notification(const nic::work_completion& wc, uint64_t produced_bound);
    void track_lateness(uint64_t landed);
    rx_device_counters read_device_counters();
    void export_device_counters(const rx_device_counters& dev,
                                std::map<std::string, uint64_t>& out) const;
    void await_last_notification();
    void fence_unsettled_end();
    void await_substitution_records();
    void update_progress(uint64_t released);
    //! What the device may have written by host time \p now_ns (the clock's bound, or a
    //! paced device's exact count).
    uint64_t written_bound_at(int64_t now_ns) const;
    //! Items none of whose packets can land any more (loss_tracker::on_progress).
    uint64_t settled_upto() const;
    bool gathering(uint64_t next, uint64_t ready, int64_t now) const;
    //! Of \p ready items from \p next, how many may be handed out now (none while a
    //! retune is under way; the burst's last ones once nothing can land any more).
    uint64_t may_hand_out(uint64_t next, uint64_t ready);
    //! The current (finite) run or burst has been handed out whole from \p next on.
    bool burst_over(uint64_t next) const;
    chunk recv_items(size_t max_items, std::chrono::microseconds timeout);

    // rx_stream_queue.cc. Each queued burst is tracked as a finite run of its own: its
    // progress, its loss tracker over the ring rotated to its first slot, its clock.
    // The current one (the consumer's) is swapped into d_progress, d_tracker, d_clock,
    // so that the single-run machinery serves it unchanged.
    struct burst_state {
        uint64_t first_message = 0;
        uint64_t samples = 0;
        uint64_t time_ns = 0; // as asked; 0: seamless
        bool pushed = false;
        progress_tracker progress;
        std::unique_ptr<loss_tracker> tracker;
        stream_clock clock;
        uint64_t messages(uint64_t per_message) const
        {
            return (samples + per_message - 1) / per_message;
        }
    };
    // A queued burst's timeline: sample i at anchor + (offset + i) / rate, exactly as
    // the device reckons it (a chain of seamless bursts keeps one anchor).
    struct burst_timeline {
        bool known = false; // the run's start is known (after START)
        uint64_t anchor_ns = 0;
        uint64_t offset = 0;
        uint64_t samples = 0;
    };
    std::unique_ptr<burst_state> make_burst(uint64_t first_message, uint64_t samples);
    void check_region_free(uint64_t first_item, uint64_t samples) const;
    void push_burst(burst_state& b);
    void start_queue();
    bool advance_burst();
    void route_immediate(const nic::work_completion& wc);
    void stop_queue(uint64_t emitted);
    chunk recv_queued(size_t max_items, std::chrono::microseconds timeout);
    uint64_t end_of(const burst_timeline& t) const;
    static void advance(burst_timeline& t, uint64_t time_ns, uint64_t samples);

    logger_ptr d_logger;
    rx_stream_plan d_plan;
    test_signal_config d_signal; // what the emulator generates (type=emu, or a daemon)
    emulated_impairments d_impairments;

    // Declared in creation order, destroyed in reverse (verbs lifetime rules: QP and
    // MR before PD, PD and CQ before the device, the ring after its registration).
    std::shared_ptr<shared_device> d_dev; // shared with every stream naming it
    std::unique_ptr<shared_device::rx_claim> d_claim; // its RX stream, ours while running
    device_controller* d_device = nullptr;            // the device's controller
    device_info d_info;
    std::unique_ptr<stream_ownership> d_ownership; // claims it on the device per run
    link_state d_link;
    std::unique_ptr<nic::device> d_nic;
    std::unique_ptr<ring_memory> d_ring;
    std::unique_ptr<nic::protection_domain> d_pd;
    std::unique_ptr<nic::memory_region> d_mr;
    std::unique_ptr<nic::completion_queue> d_cq;
    std::unique_ptr<nic::queue_pair> d_qp; // one per run

    // Several links (rx_stream_links.cc): destination d > 0 is d_destinations[d - 1].
    struct destination_qp {
        // Its own NIC (nic_addr=A+B), in creation order; all null: the stream's.
        std::unique_ptr<nic::device> nic;
        std::unique_ptr<nic::protection_domain> pd;
        std::unique_ptr<nic::memory_region> mr;
        std::unique_ptr<nic::completion_queue> cq;
        std::unique_ptr<nic::queue_pair> qp;
        link_state link;
        uint32_t psn = 0;
        int receives_posted = 0;
    };
    link_plan d_link_plan;
    std::vector<uint16_t> d_link_weights; // per destination, as programmed
    std::vector<destination_qp> d_destinations;
    regs::link_schedule d_schedule;       // epoch 0 of the run: the weights
    destination_progress d_dest_progress; // immediates per destination -> d_progress
    link_accounting d_link_counts;
    std::unique_ptr<link_watch> d_link_watch; // several links: the epochs, LINK_CONTROL
    link_liveness d_liveness;                 // when the host declares a link down
    epoch_follower d_follower;                // the device's epochs -> d_schedule
    std::array<uint64_t, link_plan::max_links> d_link_down_events{};
    std::array<uint64_t, link_plan::max_links> d_link_declared{};

    // Several hosts (rx_stream_shares.cc): this host's share, its samples' place.
    share_plan d_share_plan;
    share_layout d_share;          // local samples <-> the stream's (one share: same)
    uint64_t d_stream_samples = 0; // a split finite burst: the stream's samples
    uint64_t d_stream_emitted = 0; // RX_SAMPLES_EMITTED, every share's
    bool d_leader_stopped = false; // share h >= 1: share 0's host ended the run
    unsigned d_share_link = 0;     // share h >= 1: the device link of its destination

    progress_tracker d_progress;                  // immediate data -> landed frontier
    std::unique_ptr<loss_tracker> d_tracker;      // placeholders, gaps, overruns
    std::unique_ptr<metadata_monitor> d_metadata; // metadata channel (docs/metadata.md)
    metadata_settings d_metadata_settings;
    std::unique_ptr<latency_probe> d_probe; // latency_probe=1 only (benchmarks)
    std::unique_ptr<device_watch> d_watch;  // the heartbeat (after d_device: uses it)
    std::unique_ptr<tune_tracker> d_tunes;  // RF channel stream_index, when there is one
    std::unique_ptr<consumer_gate> d_gate;  // emu_pace=consumer only (a test mode)
    rational d_rate;
    stream_clock d_clock;
    clock_estimate d_clock_estimate;
    std::atomic<bool> d_running{ false };
    uint64_t d_start_time_ns = 0;
    uint64_t d_next_wr_id = 0;
    int d_receives_posted = 0; // posted and not yet completed
    uint64_t d_completions = 0;
    uint64_t d_handouts = 0; // wait_items calls that returned items
    bool d_last_notification_awaited = false;
    bool d_end_fenced = false; // the burst ended with packets still on their way
    int64_t d_last_handout_ns = INT64_MIN / 2; // host time wait_items last had items
    path_lateness d_lateness;     // how much later than the grace the path runs
    path_delay d_paths;           // each destination's path, for DST_PATH_NS
    uint64_t d_read_position = 0; // standalone consumer (recv/release)
    uint64_t d_handed_out = 0;    // standalone consumer: committed so far
    size_t d_last_chunk = 0;

    // The device's health (rx_stream_device.cc).
    event_queue<64> d_events;      // device and NIC reports
    std::string d_error;           // why the run ended early; empty: it did not
    std::string d_device_note;     // why the device's final counters are not known
    bool d_outage = false;         // the device is lost and the stream waits for it
    bool d_items_in_slots = false; // the consumer's item k is ring slot k (rx_source)
    int64_t d_outage_since_ns = 0;
    uint64_t d_run_base = 0; // this stream's sample of the device run's sample 0
    uint64_t d_rearms = 0;
    uint64_t d_run_t0 = 0; // RX_START_TIME of the device's current run (program_device)
    uint32_t d_holds_reported = 0;     // device_watch::holds_begun() reported
    uint32_t d_hold_ends_reported = 0; // device_watch::holds_ended() logged
    uint64_t d_rate_holds = 0;         // host.rate_held_reports
    bool d_final_known = false; // d_final holds the device's counters after its STOP
    struct rate_change_plan {
        bool pending = false;
        double rate = 0;
        rational ratio{ 1, 1 };
        uint64_t item = 0;    // the new run's sample 0 in this stream
        uint64_t stop_ns = 0; // the old run's timed STOP
        uint64_t t1_ns = 0;   // the new run's START_TIME
    };
    rate_change_plan d_rate_change;
    rx_device_counters d_final;

    // Queued bursts (rx_stream_queue.cc): the current one first (when d_burst_current),
    // then those waiting, pushed or (before start()) not yet.
    std::deque<std::unique_ptr<burst_state>> d_bursts;
    bool d_burst_current = false;
    uint64_t d_consumer_base = 0;   // the consumer's item of the current burst's sample 0
    uint64_t d_ring_first = 0;      // the ring item of the current burst's sample 0
    uint64_t d_bq_next_message = 0; // after the last burst queued
    burst_timeline d_bq_queued;     // the last burst queued (for its checks)
    burst_timeline d_bq_pushed;     // the last burst pushed
    uint32_t d_bq_capacity = regs::bq::emulator_capacity; // BQ_STATUS.CAPACITY
    loss_counts d_retired_counts;                         // bursts handed out whole
    uint64_t d_retired_samples = 0;
    uint64_t d_stopped_waiting = 0; // emitted by bursts never current: lost_stopped
    uint64_t d_imm_unrouted = 0;    // immediates of no queued burst
    // Reports of a burst not yet polled when the next one became current: final (item
    // among the consumer's, time of its own burst's clock).
    event_queue<256> d_carried;
};

} // namespace rdma
} // namespace gr

#endif
