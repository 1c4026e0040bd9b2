/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LATENCY_HISTOGRAM_H
#define INCLUDED_RDMA_STREAM_LATENCY_HISTOGRAM_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * Durations in ns, kept as a fixed histogram with three significant digits (exact
 * below 1 us, within 0.1 % above, up to 10 s; longer ones in the last bucket), so
 * that recording neither allocates nor sorts, and runs can be pooled exactly from the
 * exported buckets. Percentiles are nearest-rank over the buckets.
 */
class latency_histogram
{
public:
    latency_histogram();

    void reset();
    //! One duration; negative ones count as 0.
    void record(int64_t ns);

    uint64_t samples() const { return d_samples; }
    uint64_t max() const { return d_max; }
    //! Nearest-rank percentile \p p (0 < p <= 100) in ns, bucket resolution; 0 if
    //! there is no sample.
    uint64_t percentile(double p) const;
    /*!
     * Add "<prefix>samples", "<prefix>p50_ns", "<prefix>p99_ns", "<prefix>p999_ns",
     * "<prefix>max_ns" and one "<prefix>hist.<ns>" per non-empty bucket (its lower
     * edge, ns).
     */
    void export_counters(const std::string& prefix,
                         std::map<std::string, uint64_t>& out) const;

    //! The bucket of \p ns and its lower edge.
    static size_t bucket_of(uint64_t ns);
    static uint64_t bucket_value(size_t bucket);

private:
    std::vector<uint64_t> d_buckets;
    uint64_t d_samples = 0;
    uint64_t d_max = 0;
};

} // namespace rdma
} // namespace gr

#endif
