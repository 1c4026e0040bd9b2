/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RX_ENGINE_H
#define INCLUDED_RDMA_EMU_RX_ENGINE_H

#include "../device/consumer_pacing.h"
#include "ack_receiver.h"
#include "command_queue.h"
#include "ctrl_sink.h"
#include "dequeue_limiter.h"
#include "destination_table.h"
#include "device_clock.h"
#include "impairments.h"
#include "metadata_sink.h"
#include "packetizer.h"
#include "rc_destinations.h"
#include "rf_channel.h"
#include "rx_descriptor.h"
#include "sample_source.h"
#include "share_counters.h"
#include "stream_thread.h"
#include "wire.h"
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! The radio an RX engine works with (docs/radio.md); any may be null (tests of the
//! wire): then the engine keeps a clock of its own, and no channel or command acts.
struct engine_radio {
    const device_clock* clock = nullptr; //!< the device clock
    rf_channel* channel = nullptr;       //!< the stream's RF channel
    timed_commands* commands = nullptr;  //!< the command queue
};

/*!
 * The RX engine of one stream: the SDR's network logic. Paced by the device clock at
 * the sample rate, it hands every message to the wire as its packetizer cuts it,
 * applying the configured impairments (drop, duplicate, corrupt, delay, bad key or
 * address) to first transmissions and recording each in a fault log. With transport
 * RC its rc_requester hears the host's ACK/NAKs and resends (go-back-N) before anything
 * new leaves. It runs on its own thread, "emu-rx<index>", charged to the device.
 *
 * Samples come from the run's sample_source: the test signal, or the RF scene through
 * the stream's RF channel. Before it computes samples the engine runs the queued
 * commands due by their time and tells the channel how far it computes, so a timed
 * retune or STOP acts at its exact sample (docs/radio.md). Pacing follows the
 * oscillator; the device clock only fixes the time of sample 0.
 */
class rx_engine : public stoppable_stream
{
public:
    //! \p metadata (may be null) hears of starts, progress, ends and device events;
    //! \p acks (may be null: then no RC) hands out the link's ACK/NAKs for this stream;
    //! \p links (may be null: then \p link only) the device's links, for a stream over
    //! several destinations (docs/register-map.md, "Several links").
    rx_engine(unsigned index,
              wire& link,
              metadata_sink* metadata = nullptr,
              ack_receiver* acks = nullptr,
              const engine_radio& radio = {},
              const link_set* links = nullptr);
    ~rx_engine();
    rx_engine(const rx_engine&) = delete;
    rx_engine& operator=(const rx_engine&) = delete;

    //! Validate and start; returns regs::error_code::none or why not. On success the
    //! time of sample 0 is fixed (start_time_ns()) before this returns.
    uint32_t start(const rx_descriptor& d);
    //! Stop; once this returns, no further packet of this stream leaves the device, and
    //! the counters are final: what the converter produced and the link did not send
    //! counts as dropped (docs/register-map.md, RX_SAMPLES_EMITTED). A run that was
    //! running reads \p cause in RX_STOP_CAUSE (regs::stop_cause) from then on.
    void stop(uint32_t cause = regs::stop_cause::command);
    //! A timed STOP (the command queue): the run ends before its first sample taken at
    //! or after device time \p at_ns, or before the first sample not computed yet if
    //! that is later, and reads DONE as a finite burst that ended there.
    void stop_at(uint64_t at_ns) override;

    //! A burst as the host stages it in the burst queue (docs/radio.md).
    struct queued_burst {
        uint64_t time_ns = 0;                            //!< BQ_TIME; 0: seamless
        uint64_t samples = 0;                            //!< BQ_SAMPLES
        uint64_t first_message = regs::bq::next_message; //!< BQ_FIRST_MESSAGE
    };
    //! PUSH: queue \p b for the queued run; returns regs::bq::error (none: queued).
    uint32_t push_burst(const queued_burst& b);
    //! CLEAR: drop the bursts not started yet.
    void clear_bursts();
    //! Bursts queued and not started.
    uint32_t bursts_queued() const;

    uint32_t status() const; //!< regs::status bits and error code
    //! RX_STOP_CAUSE: why the last run ended (regs::stop_cause; none while it runs).
    uint32_t stop_cause() const { return d_stop_cause.load(); }
    uint64_t start_time_ns() const { return d_start_time_ns.load(); }
    rx_counters counters() const;
    //! SHARE_SAMPLES_EMITTED of share \p h in the current (or last) run.
    uint64_t share_samples_emitted(unsigned h) const
    {
        return d_share_emitted.samples(h);
    }
    fault_log& faults() { return d_faults; }
    //! The destinations and epochs of the current (or last) run; null before the first.
    std::shared_ptr<destination_table> routes() const;
    //! Where the stream's dequeue rate comes from (sample bytes per second, 0: none;
    //! docs/register-map.md, "Controller"): read once per batch. Set before any START.
    void set_rate_source(const std::atomic<uint64_t>* bytes_per_s)
    {
        d_rate_source = bytes_per_s;
    }
    //! Who hears the stream's RC NAK count (the controller's events); set before START.
    void set_ctrl_sink(ctrl_sink* sink) { d_ctrl_sink = sink; }
    //! The stream's pacing by its consumer (emu_pace=consumer): a run started while
    //! it is on produces no further than its gate, and is never late. Set before any
    //! START; null: the oscillator alone paces.
    void set_pacing(consumer_pacing* pacing) { d_pacing = pacing; }
    //! Whether the next START runs paced (a START_TIME the clock passed is then no
    //! refusal: the paced timeline may lag the clock, docs/device-args.md).
    bool paced_next() const { return d_pacing && d_pacing->on.load(); }
    //! The ack_receiver of each link ([n]: link n's; null: none), for RC over the
    //! destinations of several links; without, the one given at construction hears
    //! link 0's. Set before any START.
    void set_link_acks(std::vector<ack_receiver*> acks) { d_link_acks = std::move(acks); }
    //! What destination \p d's RC requester measured and did in the current (or last)
    //! run (its RC block, docs/register-map.md "RC requesters").
    const rc_destination_stats& rc_destination(unsigned d) const
    {
        return d_rc_destination.at(d);
    }

private:
    // A message the impairments hold back, stored outside the batch slots.
    struct held_message {
        uint64_t release_after = 0; // sent once this message index has been sent
        uint64_t message = 0;
        size_t packets = 0;
    };

    // A queued burst as accepted: sample i taken at anchor + (offset + i) / rate (a
    // seamless burst keeps its predecessor's anchor, so a chain of them is exact).
    struct burst_plan {
        uint64_t anchor_ns = 0;
        uint64_t offset = 0;
        uint64_t samples = 0;
        uint64_t first_message = 0;
    };
    enum class next_burst { started, wait, end };

    void stream(stream_thread::lock_type& lock);
    uint32_t queue_burst(const queued_burst& b); // with d_bq_mutex held
    next_burst begin_next_burst(uint64_t& wait_ns);
    bool burst_finished();
    void close_queue();
    uint64_t burst_stop_sample(uint64_t at_ns) const;
    bool apply_stop_request();
    bool run_due_commands(uint64_t end);
    uint64_t device_time_of(uint64_t sample) const;
    //! emu_pace=consumer: hold the run's timeline at the gate, and just past the
    //! message after \p sent.
    void hold_timeline(int64_t now_ns, uint64_t sent);
    //! How far a paced run's timeline may run ahead of the end of the message after
    //! what the engine sent: a batch's worth of messages may leave at once.
    static constexpr int64_t paced_slack_ns = 2000000;
    void account_unsent(int64_t now_ns);
    size_t fill_batch(uint64_t& next, uint64_t ready, uint64_t total, uint64_t allowed);
    uint64_t dequeue_allowed(int64_t now_ns, uint64_t next, uint64_t ready);
    void report_naks();
    bool overflowed(uint64_t message) const;
    uint64_t drop_overflowed(uint64_t first, uint64_t ready);
    size_t take_held(uint64_t sent_up_to, size_t count);
    size_t add_message(uint64_t message, uint32_t fate, size_t count);
    size_t send_all(size_t count, stream_thread::lock_type& lock);
    size_t send_run(size_t first, size_t count, bool& whole);
    void account_sent(size_t sent);
    bool resend(stream_thread::lock_type& lock, int64_t now_ns);
    int64_t rc_sleep_ns(int64_t now_ns, int64_t sleep_ns) const;

    const unsigned d_index;
    wire& d_link;
    const link_set* const d_links;
    metadata_sink* const d_metadata;
    ack_receiver* const d_acks;
    std::vector<ack_receiver*> d_link_acks;          // [n]: link n's
    const std::unique_ptr<device_clock> d_own_clock; // without a device clock given
    const device_clock& d_clock;
    rf_channel* const d_channel;
    timed_commands* const d_commands;

    rx_descriptor d_desc; // guarded by d_thread's lock while not running; the thread's
                          // while running
    int64_t d_mono_t0_ns = 0;
    consumer_pacing* d_pacing = nullptr;
    bool d_paced = false;        // this run: d_pacing is on
    uint64_t d_next_message = 0; // the next message to send (the thread's while running)

    // Owned by the sending thread while running (set up by start()).
    uint64_t d_end = UINT64_MAX;             // samples of the run; UINT64_MAX: continuous
    std::unique_ptr<sample_source> d_source; // before d_builder, which uses it
    std::unique_ptr<packetizer> d_builder;
    std::unique_ptr<impairment_plan> d_plan;
    std::unique_ptr<rc_destinations> d_rc; // transport RC only
    // The run's destinations (the register file reads them too, under d_routes_mutex).
    mutable std::mutex d_routes_mutex;
    std::shared_ptr<destination_table> d_routes;
    destination_table* d_run_routes = nullptr; // the thread's, while running
    size_t d_slot_bytes = 0;
    std::vector<uint8_t> d_slots;          // batch packet memory
    std::vector<outgoing_packet> d_batch;  // the batch
    std::vector<uint64_t> d_batch_message; // message of each batch packet
    std::vector<uint32_t> d_batch_fate;    // its fate
    static constexpr size_t max_held_messages = 32;
    std::vector<uint8_t> d_held_slots; // held packet memory, one region per index
    std::vector<outgoing_packet> d_held_packets;       // their descriptions
    std::array<bool, max_held_messages> d_held_busy{}; // region in use
    std::vector<held_message> d_held;                  // FIFO of held messages

    // Sample k of the current builder is taken at d_seg_anchor_ns + (d_seg_offset + k) /
    // rate: the run's t0 and 0, or a queued burst's plan. Written with the thread's
    // lock held.
    uint64_t d_seg_anchor_ns = 0;
    uint64_t d_seg_offset = 0;
    // Queued mode (the thread's while running).
    bool d_queued = false;
    bool d_between = false;            // no burst in progress: the builder is not in use
    uint64_t d_record_base = 0;        // metadata sample number of the burst's sample 0
    uint64_t d_burst_emitted_base = 0; // RX_SAMPLES_EMITTED when the burst began
    uint32_t d_next_psn = 0;           // the next burst's first PSN
    // The burst queue, filled by the register file while the run takes pushes.
    mutable std::mutex d_bq_mutex;
    std::deque<burst_plan> d_bursts; // guarded by d_bq_mutex
    bool d_bq_open = false;          // guarded by d_bq_mutex: a queued run takes pushes
    burst_plan d_bq_last;            // guarded by d_bq_mutex: the last burst accepted
    uint64_t d_bq_next_message = 0;  // guarded by d_bq_mutex: after the last burst
    uint32_t d_bq_rate_num = 1;      // guarded by d_bq_mutex: the run's rate
    uint32_t d_bq_rate_den = 1;
    uint64_t d_bq_spm = 1; // guarded by d_bq_mutex: samples per message
    // Queued mode: a timed STOP's time (UINT64_MAX: none); bursts from then on are not
    // sent.
    std::atomic<uint64_t> d_stop_time_ns{ UINT64_MAX };

    // The dequeue rate (the controller's); the limiter is the thread's.
    const std::atomic<uint64_t>* d_rate_source = nullptr;
    dequeue_limiter d_limiter;
    uint64_t d_batch_taken = 0; // messages the last batch took from the FIFO
    ctrl_sink* d_ctrl_sink = nullptr;

    fault_log d_faults;
    // A timed STOP's first sample not to produce (UINT64_MAX: none), for the thread.
    std::atomic<uint64_t> d_stop_request{ UINT64_MAX };
    std::atomic<uint32_t> d_status{ 0 };
    std::atomic<uint32_t> d_stop_cause{ 0 }; // regs::stop_cause, latched as the run ends
    std::atomic<uint64_t> d_start_time_ns{ 0 };
    std::atomic<uint64_t> d_packets_sent{ 0 };
    std::atomic<uint64_t> d_samples_emitted{ 0 };
    std::atomic<uint64_t> d_packets_dropped{ 0 };
    std::atomic<uint64_t> d_samples_dropped{ 0 };
    std::atomic<uint64_t> d_imm_sent{ 0 };
    std::atomic<uint64_t> d_packets_faulted{ 0 };
    std::atomic<uint64_t> d_samples_faulted{ 0 };
    std::atomic<uint64_t> d_packets_duplicated{ 0 };
    std::atomic<uint64_t> d_messages_delayed{ 0 };
    share_counters d_share_emitted; // d_samples_emitted by share
    rc_stats d_rc_stats;
    std::array<rc_destination_stats, 8> d_rc_destination;

    stream_thread d_thread; // last: its thread uses everything above
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
