/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TUNE_TRACKER_H
#define INCLUDED_RDMA_STREAM_TUNE_TRACKER_H

#include "../device/radio_control.h"
#include "stream_clock.h"
#include <gnuradio/rdma/rx_event.h>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * Where in a stream each retune of its RF channel took effect: the first sample taken at
 * or after the time the device says the frequency is in effect from (docs/radio.md), as
 * a tune event (rx_source tags it "rx_freq"). Retunes come from whichever thread made
 * them through the device's radio_control (a controller block, a setter, a command);
 * the consumer turns them into events once their sample has been handed out, so that a
 * tag never names an item that does not exist yet.
 *
 * Only changes made through this process are seen; another host's retune is not.
 */
class tune_tracker
{
public:
    static constexpr size_t max_pending = 64;

    tune_tracker(radio_control& radio, unsigned chan);
    tune_tracker(const tune_tracker&) = delete;
    tune_tracker& operator=(const tune_tracker&) = delete;

    //! A run starts: forget the last run's, and report the frequency in effect at its
    //! sample 0 there.
    void start();
    /*!
     * The next tune event whose sample the consumer has been handed (consumer items
     * below \p handed_out; device item = consumer item + \p offset), with its item,
     * device_item, value (mHz) set; false when none is due.
     */
    bool
    poll(uint64_t handed_out, uint64_t offset, const stream_clock& clock, rx_event& out);
    //! Retunes dropped because max_pending waited (a consumer that does not poll).
    uint64_t dropped() const;
    //! A retune of the channel is under way (radio_control::freq_change_under_way()):
    //! hand out nothing new until it is told, so that its tag can still be placed.
    bool change_under_way() const { return d_radio.freq_change_under_way(d_chan); }

private:
    struct inbox {
        mutable std::mutex mutex;
        std::vector<rf_change> changes;
        uint64_t dropped = 0;
        // Set with the first change queued: poll() runs at every hand-out and takes
        // the lock only when there is something to take.
        std::atomic<bool> pending{ false };
    };

    radio_control& d_radio;
    const unsigned d_chan;
    const std::shared_ptr<inbox> d_inbox;
    std::shared_ptr<void> d_subscription;
    std::vector<rf_change> d_pending; // consumer side: waiting for their sample
};

} // namespace rdma
} // namespace gr

#endif
