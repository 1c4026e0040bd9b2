/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_ENGINE_H
#define INCLUDED_RDMA_EMU_TX_ENGINE_H

#include "../device/consumer_pacing.h"
#include "../util/log.h"
#include "ack_receiver.h"
#include "ctrl_sink.h"
#include "device_clock.h"
#include "metadata_sink.h"
#include "stream_thread.h"
#include "tx_burst_schedule.h"
#include "tx_descriptor.h"
#include "tx_read_pacer.h"
#include "tx_reports.h"
#include "tx_requester.h"
#include "wire.h"
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The TX engine of one stream (docs/transmit.md): a converter that plays one sample per
 * tick of the sample rate from device time TX_START_TIME, and the RC requester that
 * fills its FIFO by RDMA READ from the host's TX ring, a lead time ahead.
 *
 * Message m is samples [m·spm, (m+1)·spm) at ring offset (m·payload) mod ring_bytes;
 * burst ENDs cut messages into pieces (tx_burst_schedule: which burst an item is in,
 * when it plays; a continuous or finite run is one burst). The engine READs a piece
 * once the host's `committed` (read from the control page at START and when needed)
 * covers it wholly, and once its first sample plays within the lead time. At the tick
 * of a piece's first sample the converter decides: fetched, it plays the piece;
 * committed but not fetched, it plays zeros for the whole piece (late, the samples are
 * consumed); not committed, it plays zeros for the tick and waits (underflow: the
 * host's samples are not consumed, so that every committed sample is played, late,
 * dropped, or not played at STOP), and after an underflow it resumes only once its
 * FIFO holds a lead time again (or all that is committed). Held to a READ rate
 * (CTRL_TX_RATE) it requests no piece before the rate allows, so that what it cannot
 * fetch in time plays as late zeros. Outside every burst (queued
 * mode) it plays idle zeros. Every TX_NOTIFY_INTERVAL messages done (all their items
 * fetched, given up late or dropped), and after a burst's last, a SEND ONLY WITH
 * IMMEDIATE tells the host how many. The converter is evaluated at the engine's steps,
 * never before its ticks: data is taken as arriving when the engine sees it, which can
 * only make a piece late, never play data that was not there. What the host should
 * hear of (underflow, late, burst ends, time errors, lead changes, re-reads) goes to
 * the metadata sink as TX records, rate bound (tx_report_limiter).
 *
 * One thread, "emu-tx<index>", charged to the device; it sleeps between events (100 µs
 * at most).
 */
class tx_engine
{
public:
    //! \p acks hands out this stream's READ RESPONSEs and ACK/NAKs (it must have been
    //! made with TX streams); \p clock the device clock (null: one of its own).
    //! \p metadata (may be null): where the TX records go.
    tx_engine(unsigned index,
              wire& link,
              ack_receiver& acks,
              const device_clock* clock = nullptr,
              metadata_sink* metadata = nullptr);
    ~tx_engine();
    tx_engine(const tx_engine&) = delete;
    tx_engine& operator=(const tx_engine&) = delete;

    //! Validate and start; returns regs::error_code::none or why not. On success the
    //! device time of sample 0 is fixed (start_time_ns()) before this returns.
    uint32_t start(const tx_descriptor& d);
    //! Stop; once this returns no request of this stream leaves, and the counters are
    //! final (TX_SAMPLES_NOT_PLAYED from a last READ of the control page).
    void stop();

    uint32_t status() const { return d_status.load(); }
    uint64_t start_time_ns() const { return d_start_time_ns.load(); }
    tx_counters counters() const;
    //! Where the rate of its sample READs comes from (sample bytes per second, 0: no
    //! limit; the controller's CTRL_TX_RATE). Set before the first START.
    void set_rate_source(const std::atomic<uint64_t>* bytes_per_s)
    {
        d_pacer.set_rate_source(bytes_per_s);
    }
    //! Who hears of its re-reads (the device's controller: its NAK backoff). Set
    //! before the first START.
    void set_ctrl_sink(ctrl_sink* sink) { d_pacer.set_ctrl_sink(sink, d_index); }
    //! Converter ticks evaluated so far: samples played, late, underflow and idle zeros.
    uint64_t ticks() const { return d_ticks_done.load(); }
    //! The stream's pacing by its host (emu_pace=consumer, consumer_pacing.h: only
    //! `on` is read): a run started while it is on never plays late or underflow zeros;
    //! its converter waits for each piece, its timeline standing still meanwhile. Set
    //! before any START; null: the oscillator alone paces.
    void set_pacing(const consumer_pacing* pacing) { d_pacing = pacing; }

    // The TX burst queue (docs/register-map.md, "TX burst queue"; any thread).
    //! Queue \p e for the queued run; regs::tbq::error::none, or why not.
    uint32_t push_entry(const tx_entry& e);
    //! CLEAR: drop the entries not taken up.
    void clear_entries();
    uint32_t entries_queued() const;

private:
    // A message's slot in the FIFO. Its items are done once fetched (a READ of a piece
    // completed), given up late, or dropped; the first two come in item order, so a
    // watermark counts each item once.
    struct slot {
        uint64_t message = UINT64_MAX;
        uint64_t fetched_end = 0; // items from the message's start: the last piece READ
        uint64_t counted = 0;     // items below are counted done (fetched or late)
        uint64_t done = 0;        // items done
    };
    enum class mode { undecided, play, late };

    void stream(stream_thread::lock_type& lock);
    int64_t step(int64_t now);
    void play(uint64_t ticks_now);
    bool decide(uint64_t piece_end, uint64_t ticks_now);
    bool refilled(uint64_t k) const;
    void request(int64_t now, int64_t& wake);
    void read_control(int64_t now);
    void handle(const tx_requester::completion& c, int64_t now);
    void mark_done(uint64_t first, uint64_t end, bool dropped);
    void advance_released(int64_t now);
    void finish();
    void update_lead();
    uint64_t samples_in(uint64_t m) const;
    uint64_t window() const;                // the first message the FIFO has no slot for
    int64_t tick_time(uint64_t tick) const; // oscillator instant of converter tick
    uint64_t device_time(uint64_t tick) const;
    slot& slot_of(uint64_t m) { return d_slots[m % d_slots.size()]; }
    uint8_t* buffer_of(uint64_t m)
    {
        return d_buffers.data() + (m % d_slots.size()) * d_desc.payload_bytes;
    }
    bool burst_done() const { return !d_desc.queued && d_sched.item() >= d_end; }
    // Queued mode and the TX records (tx_engine_bursts.cc).
    void take_up(uint64_t ticks_now, int64_t now, int64_t& wake);
    void time_error(uint64_t item, uint64_t time_ns);
    void burst_ended(const tx_burst_schedule::event& e);
    void note_underflow(uint64_t item, uint64_t ticks);
    void note_late(uint64_t item, uint64_t ticks);
    void close_reports(bool underflow, bool late);
    void report(uint32_t code, uint64_t sample, uint64_t time_ns, uint64_t value);
    void send_reports(int64_t now, bool all);

    const unsigned d_index;
    wire& d_link;
    ack_receiver& d_acks;
    const std::unique_ptr<device_clock> d_own_clock;
    const device_clock& d_clock;
    metadata_sink* const d_metadata;
    logger_ptr d_logger;

    // The run's, set by start() with the thread idle, then the thread's.
    tx_descriptor d_desc;
    std::unique_ptr<tx_requester> d_rq;
    size_t d_item = 4;
    uint64_t d_spm = 1;          // samples per message
    uint64_t d_end = UINT64_MAX; // samples of the burst; UINT64_MAX: continuous
    uint64_t d_messages = UINT64_MAX;
    uint64_t d_ring_slots = 1;
    int64_t d_mono_t0 = 0;
    const consumer_pacing* d_pacing = nullptr;
    bool d_paced = false;   // this run: d_pacing is on
    int64_t d_step_now = 0; // the oscillator at the current step
    int64_t d_payload_ns = 0;
    int64_t d_lead_ns = 0;
    std::vector<slot> d_slots;
    std::vector<uint8_t> d_buffers;
    tx_burst_schedule d_sched; // the converter's position and the bursts' plan
    mode d_mode = mode::undecided;
    uint64_t d_next_tick = 0; // when play() has something to decide next
    uint64_t d_committed = 0; // as last read from the control page, this run's
    int64_t d_control_not_before = 0;
    uint64_t d_released = 0; // messages done: fetched or given up late, in order
    uint64_t d_notified = 0; // the last immediate sent
    bool d_failed_logged = false;
    bool d_underflowing = false; // the last tick was an underflow zero
    bool d_probed = false;       // the run's first control page READ went
    // The TX records of this run: the underflow and late zeros not reported yet.
    struct open_report {
        bool open = false;
        uint64_t item = 0;
        uint64_t first_tick = 0;
        uint64_t zeros = 0;
    };
    open_report d_uf;
    open_report d_late_run;
    tx_report_limiter d_reports;
    tx_read_pacer d_pacer; // the READ rate (the controller's): the thread's

    // Queued mode: the entries pushed, not taken up (AXIoE pushes, the thread pops).
    mutable std::mutex d_queue_mutex;
    tx_entry_queue d_queue; // guarded by d_queue_mutex

    std::atomic<uint32_t> d_status{ 0 };
    std::atomic<uint64_t> d_start_time_ns{ 0 };
    std::atomic<uint64_t> d_ticks_done{ 0 };
    std::atomic<uint64_t> d_played{ 0 };
    std::atomic<uint64_t> d_underflow{ 0 };
    std::atomic<uint64_t> d_late{ 0 };
    std::atomic<uint64_t> d_reads{ 0 };
    std::atomic<uint64_t> d_rereads{ 0 };
    std::atomic<uint32_t> d_lead_reg{ 0 };
    std::atomic<uint32_t> d_rtt_reg{ 0 };
    std::atomic<uint64_t> d_checked{ 0 };
    std::atomic<uint64_t> d_mismatches{ 0 };
    std::atomic<uint64_t> d_fetched{ 0 };
    std::atomic<uint64_t> d_notifies{ 0 };
    std::atomic<uint64_t> d_not_played{ 0 };
    std::atomic<uint64_t> d_dropped{ 0 };
    std::atomic<uint64_t> d_idle{ 0 };
    std::atomic<uint64_t> d_bursts_done{ 0 };
    std::atomic<uint64_t> d_time_errors{ 0 };

    stream_thread d_thread; // last: its thread uses everything above
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
