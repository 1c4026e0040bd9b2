/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_DEVICE_WATCH_H
#define INCLUDED_RDMA_STREAM_DEVICE_WATCH_H

#include "../device/device_controller.h"
#include "../util/periodic_worker.h"
#include "device_liveness.h"
#include "rate_hold.h"
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gr {
namespace rdma {

/*!
 * The host's heartbeat to the device of one RX stream: a thread ("rdma-watch", charged
 * to the host) reads the stream's status over AXIoE every period, and the data path
 * asks, with a few atomic loads, how the device is.
 *
 * A device that has not answered for lost_after, its last exchange failed, is *lost*
 * (device_liveness): a dead device is known within lost_after or the AXIoE client's
 * whole timeout, whichever is longer, plus one period. Each answer also renews the
 * stream's ownership lease on the device (any exchange from the owner does).
 */
class device_watch
{
public:
    enum class state {
        ok,             //!< answering, the stream runs (or finished its burst)
        lost,           //!< no answer for lost_after
        stream_stopped, //!< answering, but the stream is neither running nor done
        stream_failed,  //!< the device reports the stream in error (e.g. RC gave up)
        taken_over,     //!< answering, but another host owns the stream now (it took
                        //!< it over, or claimed it once this host's lease lapsed):
                        //!< whatever runs there is not this host's run
    };

    device_watch(device_controller& device,
                 unsigned stream,
                 std::chrono::milliseconds period,
                 std::chrono::milliseconds lost_after);
    ~device_watch();
    device_watch(const device_watch&) = delete;
    device_watch& operator=(const device_watch&) = delete;

    //! Watch from now on (after START): the device counts as answering now.
    //! \p owned: this host claimed the stream, so each beat reads its owner too (a
    //! take-over leaves the stream running, for its new owner).
    void start(bool owned);
    //! Each beat reads CTRL_RATE too (a device with CAP_RATE_CONTROL), and finds
    //! whether the device holds the stream below \p need_bytes_per_s (rate_hold; 0:
    //! not read). Before start(), and at every new run (its rate may differ).
    void watch_rate(uint64_t need_bytes_per_s) { d_rate_need = need_bytes_per_s; }
    //! Holds that began (rate_hold: held at two readings in a row) and ended, since
    //! the watch was made (never reset): the data path reports each once.
    uint32_t holds_begun() const { return d_holds_begun.load(); }
    uint32_t holds_ended() const { return d_holds_ended.load(); }
    //! CTRL_RATE of the latest held reading, bytes/s.
    uint64_t held_bytes_per_s() const { return d_held_bytes.load(); }
    //! Stop watching; returns once the thread is idle (an exchange under way may take
    //! the AXIoE client's timeout to end).
    void stop();

    /*!
     * How the device is, as of \p now_ns (steady clock). Cheap: for the data path.
     * Lost takes evidence: no answer for lost_after, and the last exchange failed (the
     * client asked, waited and gave up). A watch that did not run meanwhile (a busy
     * machine starved its thread, the process was stopped) asked nothing, and does
     * not blame the device for its own silence.
     */
    state current(int64_t now_ns) const;
    //! When the device last answered (steady clock, ns).
    int64_t last_answer_ns() const { return d_liveness.last_answer_ns(); }
    //! The longest time since start() (ns) in which the watch asked the device nothing
    //! (between two beats, less the time it waited for answers that never came): a
    //! host stopped or starved longer than its ownership lease
    //! has lost its stream by its own silence.
    int64_t longest_silence_ns() const { return d_longest_silence_ns.load(); }
    //! A beat found the stream another host's (this run): sticky until start().
    bool taken_over() const { return d_taken.load(); }
    /*!
     * RX_STOP_CAUSE (regs::stop_cause) as a beat read it once it found the run over
     * (neither running nor done, or in error), before that status is published: who
     * sees the stream stopped can already ask why. Empty before that, and on a device
     * without CAP_STOP_CAUSE (map 1.5 and before) or when the read failed.
     */
    std::optional<uint32_t> stop_cause() const
    {
        const uint64_t v = d_stop_cause.load();
        return v == no_cause ? std::nullopt : std::optional<uint32_t>(uint32_t(v));
    }
    //! RX_STATUS at the last answer.
    uint32_t last_status() const { return d_status.load(); }
    //! Why the last exchange failed (empty after an answer). Not for the data path.
    std::string last_failure() const { return d_liveness.last_failure(); }

    static int64_t now_ns() { return device_liveness::now_ns(); }

private:
    void beat();
    void beat_exchanges();
    void read_rate();
    void read_stop_cause(uint32_t status);
    static constexpr uint64_t no_cause = UINT64_MAX;

    device_controller& d_device;
    const unsigned d_stream;

    device_liveness d_liveness;
    std::atomic<uint32_t> d_status{ 0 };
    std::atomic<uint64_t> d_stop_cause{ no_cause };
    std::atomic<bool> d_owned{ false };
    std::atomic<bool> d_taken{ false };
    std::atomic<int64_t> d_longest_silence_ns{ 0 };
    std::atomic<int64_t> d_last_beat_ns{ 0 };
    // The thread's own (start() writes them before the thread runs): how long the
    // last beat waited for answers that never came, and whether one did not.
    int64_t d_unanswered_ns = 0;
    bool d_beat_unanswered = false;
    std::atomic<uint64_t> d_rate_need{ 0 };
    rate_hold d_hold; // the thread's own
    std::atomic<uint32_t> d_holds_begun{ 0 };
    std::atomic<uint32_t> d_holds_ended{ 0 };
    std::atomic<uint64_t> d_held_bytes{ 0 };
    periodic_worker d_worker; // last: its beat uses everything above
};

} // namespace rdma
} // namespace gr

#endif
