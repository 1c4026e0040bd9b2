/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_BURST_PLAN_H
#define INCLUDED_RDMA_STREAM_TX_BURST_PLAN_H

#include "../util/rational_rate.h"
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

//! A TX burst queue entry the host has still to push (docs/register-map.md).
struct tx_burst_entry {
    bool start = false;   //!< START, else END
    uint64_t item = 0;    //!< START: the burst's first item; END: one past its last
    uint64_t time_ns = 0; //!< START: the time asked; 0: as soon as possible
};

/*!
 * The bursts of a queued TX stream as the host marks them (tx_stream::begin_burst(),
 * end_burst(), commit()), turned into TX burst queue entries in the order the device
 * takes them (docs/transmit.md, "Bursts and time"), and the rules for pushing them:
 *
 *  - A burst's START is queued when its first item is committed: a burst begun and
 *    ended with no item is no burst, and a later begin at the same item retimes it.
 *    Items committed while no burst is open begin one as soon as possible.
 *  - The device may see items only up to the first END not pushed yet
 *    (publish_limit()): it must know where a burst ends before it can READ past it.
 *  - A START whose time lies before the earliest the device takes (the end of the
 *    burst before it as far as the entries pushed tell, or the run's start; TBQ_STATUS
 *    error 4) is late whatever happens: the device would refuse it, and its items could
 *    then never be played nor released. So it goes out with that earliest time, once
 *    the device's clock has passed it, and the device drops the burst as it drops any
 *    late one (time_error, TX_DROPPED_SAMPLES). The check mirrors the device's exactly
 *    (the register map's rule, in the same integer arithmetic).
 *
 * Pure: no clock, no I/O. Used by the stream's producer thread only.
 */
class tx_burst_plan
{
public:
    static constexpr size_t capacity = 256; //!< entries waiting to be pushed

    //! A new run; nothing committed yet.
    void reset();
    //! The run started at device time \p t0_ns (TX_START_TIME), at \p rate items per
    //! second: entries may be pushed from now on.
    void run_started(uint64_t t0_ns, rational rate);

    //! A burst begins at the commit position \p at (an open one with items ends there).
    void begin(uint64_t at, uint64_t time_ns);
    //! The open burst ends at the commit position \p at.
    void end(uint64_t at);
    //! Items from \p at on are about to be committed: their burst's START is queued.
    void committing(uint64_t at);
    //! A burst is begun or open.
    bool in_burst() const { return d_pending || d_open; }
    //! Room for the entries a begin(), end() or committing() may queue.
    bool has_room() const { return d_count + 2 <= capacity; }

    //! The oldest entry not pushed, or null.
    const tx_burst_entry* front() const { return d_count ? &d_queue[d_head] : nullptr; }
    size_t waiting() const { return d_count; }

    //! How the front entry goes out.
    struct decision {
        bool now = true;      //!< push it now (else: when the device's time passed
                              //!< not_before_ns)
        uint64_t time_ns = 0; //!< its TBQ_TIME
        bool late = false;    //!< a START the device will drop (its time was behind)
        uint64_t not_before_ns = 0;
    };
    /*!
     * For the front entry, with \p device_now_ns a lower bound of the device's time
     * now. \p margin_ns: how far past the earliest time the device's clock must be
     * for a late START (the device's take-up, a tick, the clock estimate's error).
     */
    decision resolve(uint64_t device_now_ns, uint64_t margin_ns) const;
    //! The front entry was pushed with TBQ_TIME \p time_ns.
    void pushed(uint64_t time_ns);

    //! Items the device may see of \p committed: up to the first END not pushed.
    uint64_t publish_limit(uint64_t committed) const;
    //! The item of the last END pushed (0: none).
    uint64_t last_end_pushed() const { return d_last_end; }
    //! A START was pushed and its END not yet.
    bool open_pushed() const { return d_device.open; }

    //! The earliest nonzero time the device takes for the next START now.
    uint64_t earliest_ns() const;

private:
    void queue(const tx_burst_entry& e);

    // What the entries pushed so far tell the device (its push checks).
    struct device_view {
        bool open = false;
        uint64_t item = 0;      // the open burst's first item, or the last END's
        uint64_t anchor_ns = 0; // the last timed START's time (the run's start first)
        uint64_t offset = 0;    // items from the anchor to the last END
    };

    std::array<tx_burst_entry, capacity> d_queue{};
    size_t d_head = 0;
    size_t d_count = 0;
    bool d_pending = false; // a burst begun, its first item not committed yet
    uint64_t d_pending_item = 0;
    uint64_t d_pending_time = 0;
    bool d_open = false; // its START queued (or pushed), its END not yet
    uint64_t d_open_first = 0;
    rational d_rate{ 1, 1 };
    device_view d_device;
    uint64_t d_last_end = 0;
};

} // namespace rdma
} // namespace gr

#endif
