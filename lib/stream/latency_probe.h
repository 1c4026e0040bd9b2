/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LATENCY_PROBE_H
#define INCLUDED_RDMA_STREAM_LATENCY_PROBE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * Notification latency, for the benchmarks (device arg latency_probe=1; off, and
 * absent, by default): from the NIC writing the last byte of a message WITH IMMEDIATE
 * (nic::work_completion::written_ns, steady_clock) to the host handing out the items
 * that notification made final (rx_stream's commit(), which rx_source::work() calls
 * right before it returns them to GNU Radio). NICs that cannot tell when they wrote
 * (verbs) report 0 and are not measured.
 *
 * The hot path reads the clock once per commit() that completes a pending
 * notification, and neither allocates nor logs: pending notifications wait in a
 * fixed ring, samples go to a fixed histogram with three significant digits (exact
 * below 1 us, within 0.1 % above). Percentiles are nearest-rank over that histogram;
 * the histogram itself is exported too, so that runs can be pooled exactly.
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
    //! Device items below \p end are handed out now.
    void on_produced(uint64_t end);

    uint64_t samples() const { return d_samples; }
    //! Nearest-rank percentile \p p (0 < p <= 100) in ns, histogram resolution; 0 if
    //! there is no sample.
    uint64_t percentile(double p) const;
    /*!
     * Add "<prefix>samples", "<prefix>p50_ns", "<prefix>p99_ns", "<prefix>p999_ns",
     * "<prefix>max_ns", "<prefix>dropped" (notifications the pending ring could not
     * hold) and one "<prefix>hist.<ns>" per non-empty bucket (its lower edge, ns).
     */
    void export_counters(const std::string& prefix,
                         std::map<std::string, uint64_t>& out) const;

    //! The bucket of \p ns and its lower edge (three significant digits).
    static size_t bucket_of(uint64_t ns);
    static uint64_t bucket_value(size_t bucket);

private:
    struct pending {
        uint64_t landed = 0;
        int64_t written_ns = 0;
    };
    static constexpr size_t pending_capacity = 1 << 16;

    void record(int64_t ns);

    std::vector<pending> d_pending; // ring of pending_capacity
    uint64_t d_pending_head = 0;
    uint64_t d_pending_tail = 0;
    uint64_t d_last_landed = 0;
    std::vector<uint64_t> d_histogram;
    uint64_t d_samples = 0;
    uint64_t d_max = 0;
    uint64_t d_dropped = 0;
};

} // namespace rdma
} // namespace gr

#endif
