/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LATENCY_PROBE_H
#define INCLUDED_RDMA_STREAM_LATENCY_PROBE_H

#include "latency_histogram.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * Latency, for the benchmarks (device arg latency_probe=1; off, and absent, by
 * default), two ways:
 *
 * - notification latency: from the NIC writing the last byte of a message WITH
 *   IMMEDIATE (nic::work_completion::written_ns, steady_clock) to the host handing out
 *   the items that notification made final (rx_stream's commit(), which
 *   rx_source::work() calls right before it returns them to GNU Radio). NICs that
 *   cannot tell when they wrote (verbs) report 0 and are not measured.
 * - sample age: for each hand-out, from the device taking its oldest sample (the
 *   stream's clock) to the hand-out. This is what a consumer waits: the message filling
 *   up, the wait for the notification that covers it (handout_pacing's period), the
 *   wire and the notification path.
 *
 * The hot path reads a clock or two per commit() (the host's for the age, the NIC's
 * steady clock when a notification is due) and neither allocates nor logs: pending
 * notifications wait in a fixed ring, durations go to fixed histograms.
 */
class latency_probe
{
public:
    latency_probe();

    //! Forget everything (a new run).
    void reset();
    //! A notification made device items below \p landed final; the NIC wrote it at
    //! \p written_ns (0: unknown, ignored).
    void on_notification(uint64_t landed, int64_t written_ns);
    //! Device items below \p end are handed out now; the oldest of them was taken by
    //! the device \p oldest_age_ns ago.
    void on_produced(uint64_t end, int64_t oldest_age_ns);

    const latency_histogram& notification() const { return d_notification; }
    const latency_histogram& age() const { return d_age; }
    //! Notifications the pending ring could not hold (not measured).
    uint64_t dropped() const { return d_dropped; }
    /*!
     * The notification latency's counters under \p prefix (latency_histogram's, and
     * "<prefix>dropped"), the sample age's under "<prefix>age.".
     */
    void export_counters(const std::string& prefix,
                         std::map<std::string, uint64_t>& out) const;

private:
    struct pending {
        uint64_t landed = 0;
        int64_t written_ns = 0;
    };
    static constexpr size_t pending_capacity = 1 << 16;

    std::vector<pending> d_pending; // ring of pending_capacity
    uint64_t d_pending_head = 0;
    uint64_t d_pending_tail = 0;
    uint64_t d_last_landed = 0;
    latency_histogram d_notification;
    latency_histogram d_age;
    uint64_t d_dropped = 0;
};

} // namespace rdma
} // namespace gr

#endif
