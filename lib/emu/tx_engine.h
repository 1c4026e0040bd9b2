/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_ENGINE_H
#define INCLUDED_RDMA_EMU_TX_ENGINE_H

#include "../util/log.h"
#include "ack_receiver.h"
#include "device_clock.h"
#include "stream_thread.h"
#include "tx_descriptor.h"
#include "tx_requester.h"
#include "wire.h"
#include <atomic>
#include <cstdint>
#include <memory>
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
 * the engine READs it once the host's `committed` (read from the control page at
 * START and when needed) covers it wholly, and once its first sample plays within the
 * lead time. At the tick of a message's first sample the converter decides: fetched,
 * it plays the message; committed but not fetched, it plays zeros for the whole message
 * (late, the samples are consumed); not committed, it plays zeros for the tick and
 * waits (underflow: the host's samples are not consumed, so that every committed
 * sample is played, late, or not played at STOP), and after an underflow it resumes
 * only once its FIFO holds a lead time again (or all that is committed). Every
 * TX_NOTIFY_INTERVAL messages done (fetched or given up late), and after a burst's last,
 * a SEND ONLY WITH IMMEDIATE tells the host how many. The converter is evaluated at the
 * engine's steps, never before its ticks: data is taken as arriving when the engine sees
 * it, which can only make a message late, never play data that was not there.
 *
 * One thread, "emu-tx<index>", charged to the device; it sleeps between events (100 µs
 * at most).
 */
class tx_engine
{
public:
    //! \p acks hands out this stream's READ RESPONSEs and ACK/NAKs (it must have been
    //! made with TX streams); \p clock the device clock (null: one of its own).
    tx_engine(unsigned index,
              wire& link,
              ack_receiver& acks,
              const device_clock* clock = nullptr);
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
    //! Converter ticks evaluated so far: samples played, late and underflow zeros.
    uint64_t ticks() const { return d_ticks_done.load(); }

private:
    struct slot {
        uint64_t message = UINT64_MAX;
        bool requested = false;
        bool fetched = false;
        bool late = false;
    };
    enum class mode { undecided, play, late };

    void stream(stream_thread::lock_type& lock);
    int64_t step(int64_t now);
    void play(uint64_t ticks_now);
    bool decide(uint64_t m, uint64_t ticks_now);
    bool refilled(uint64_t m) const;
    void request(int64_t now, int64_t& wake);
    void handle(const tx_requester::completion& c, int64_t now);
    void advance_released(int64_t now);
    void finish();
    void update_lead();
    uint64_t samples_in(uint64_t m) const;
    bool committed_covers(uint64_t m) const;
    int64_t tick_time(uint64_t tick) const; // oscillator instant of converter tick
    slot& slot_of(uint64_t m) { return d_slots[m % d_slots.size()]; }
    uint8_t* buffer_of(uint64_t m)
    {
        return d_buffers.data() + (m % d_slots.size()) * d_desc.payload_bytes;
    }
    bool burst_done() const { return d_k >= d_end; }

    const unsigned d_index;
    wire& d_link;
    ack_receiver& d_acks;
    const std::unique_ptr<device_clock> d_own_clock;
    const device_clock& d_clock;
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
    int64_t d_payload_ns = 0;
    int64_t d_lead_ns = 0;
    std::vector<slot> d_slots;
    std::vector<uint8_t> d_buffers;
    uint64_t d_ticks = 0; // converter ticks evaluated
    uint64_t d_k = 0;     // the next sample index to play
    mode d_mode = mode::undecided;
    uint64_t d_next_request = 0;
    uint64_t d_committed = 0; // as last read from the control page, this run's
    int64_t d_control_not_before = 0;
    uint64_t d_released = 0; // messages done: fetched or given up late, in order
    uint64_t d_notified = 0; // the last immediate sent
    bool d_failed_logged = false;
    bool d_underflowing = false; // the last tick was an underflow zero
    bool d_probed = false;       // the run's first control page READ went

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

    stream_thread d_thread; // last: its thread uses everything above
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
