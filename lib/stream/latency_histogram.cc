/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "latency_histogram.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {

namespace {
// Buckets: 0..999 ns exactly, then 900 buckets per decade (three significant digits)
// up to 10^10 ns (10 s); longer latencies land in the last bucket.
constexpr size_t exact_buckets = 1000;
constexpr size_t per_decade = 900;
constexpr size_t decades = 7; // 1e3 .. 1e10
constexpr size_t bucket_count = exact_buckets + decades * per_decade;
} // namespace

latency_histogram::latency_histogram() : d_buckets(bucket_count, 0) {}

void latency_histogram::reset()
{
    std::fill(d_buckets.begin(), d_buckets.end(), 0);
    d_samples = d_max = 0;
}

size_t latency_histogram::bucket_of(uint64_t ns)
{
    if (ns < exact_buckets)
        return static_cast<size_t>(ns);
    size_t decade = 0; // ns / 10^(decade+1) is in 100..999
    uint64_t scaled = ns / 10;
    while (scaled >= 1000) {
        scaled /= 10;
        decade++;
    }
    if (decade >= decades)
        return bucket_count - 1;
    return exact_buckets + decade * per_decade + static_cast<size_t>(scaled - 100);
}

uint64_t latency_histogram::bucket_value(size_t bucket)
{
    if (bucket < exact_buckets)
        return bucket;
    const size_t decade = (bucket - exact_buckets) / per_decade;
    uint64_t value = 100 + (bucket - exact_buckets) % per_decade;
    for (size_t i = 0; i <= decade; i++)
        value *= 10;
    return value;
}

void latency_histogram::record(int64_t ns)
{
    const uint64_t v = ns > 0 ? static_cast<uint64_t>(ns) : 0;
    d_buckets[bucket_of(v)]++;
    d_samples++;
    d_max = std::max(d_max, v);
}

uint64_t latency_histogram::percentile(double p) const
{
    if (d_samples == 0)
        return 0;
    const uint64_t rank = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(p / 100.0 * double(d_samples))));
    uint64_t seen = 0;
    for (size_t b = 0; b < d_buckets.size(); b++) {
        seen += d_buckets[b];
        if (seen >= rank)
            return bucket_value(b);
    }
    return bucket_value(d_buckets.size() - 1);
}

void latency_histogram::export_counters(const std::string& prefix,
                                        std::map<std::string, uint64_t>& out) const
{
    out[prefix + "samples"] = d_samples;
    out[prefix + "p50_ns"] = percentile(50);
    out[prefix + "p99_ns"] = percentile(99);
    out[prefix + "p999_ns"] = percentile(99.9);
    out[prefix + "max_ns"] = d_max;
    for (size_t b = 0; b < d_buckets.size(); b++) {
        if (d_buckets[b])
            out[prefix + "hist." + std::to_string(bucket_value(b))] = d_buckets[b];
    }
}

} // namespace rdma
} // namespace gr
