/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "latency_probe.h"
#include <algorithm>
#include <chrono>
#include <cmath>

namespace gr {
namespace rdma {

namespace {
// Buckets: 0..999 ns exactly, then 900 buckets per decade (three significant digits)
// up to 2^32 ns (4.3 s); longer latencies land in the last bucket.
constexpr size_t exact_buckets = 1000;
constexpr size_t per_decade = 900;
constexpr size_t decades = 7; // 1e3 .. 1e10
constexpr size_t bucket_count = exact_buckets + decades * per_decade;

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

latency_probe::latency_probe() : d_pending(pending_capacity), d_histogram(bucket_count, 0)
{
}

void latency_probe::reset()
{
    d_pending_head = d_pending_tail = 0;
    d_last_landed = 0;
    std::fill(d_histogram.begin(), d_histogram.end(), 0);
    d_samples = d_max = d_dropped = 0;
}

size_t latency_probe::bucket_of(uint64_t ns)
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

uint64_t latency_probe::bucket_value(size_t bucket)
{
    if (bucket < exact_buckets)
        return bucket;
    const size_t decade = (bucket - exact_buckets) / per_decade;
    uint64_t value = 100 + (bucket - exact_buckets) % per_decade;
    for (size_t i = 0; i <= decade; i++)
        value *= 10;
    return value;
}

void latency_probe::on_notification(uint64_t landed, int64_t written_ns)
{
    // Stale or repeated notifications prove nothing new.
    if (written_ns == 0 || landed <= d_last_landed)
        return;
    d_last_landed = landed;
    if (d_pending_tail - d_pending_head == pending_capacity) {
        d_dropped++;
        return;
    }
    d_pending[d_pending_tail++ % pending_capacity] = { landed, written_ns };
}

void latency_probe::on_produced(uint64_t end)
{
    if (d_pending_head == d_pending_tail ||
        d_pending[d_pending_head % pending_capacity].landed > end)
        return;
    const int64_t now = steady_ns();
    while (d_pending_head != d_pending_tail) {
        const pending& p = d_pending[d_pending_head % pending_capacity];
        if (p.landed > end)
            break;
        record(now - p.written_ns);
        d_pending_head++;
    }
}

void latency_probe::record(int64_t ns)
{
    const uint64_t v = ns > 0 ? static_cast<uint64_t>(ns) : 0;
    d_histogram[bucket_of(v)]++;
    d_samples++;
    d_max = std::max(d_max, v);
}

uint64_t latency_probe::percentile(double p) const
{
    if (d_samples == 0)
        return 0;
    const uint64_t rank = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(p / 100.0 * double(d_samples))));
    uint64_t seen = 0;
    for (size_t b = 0; b < d_histogram.size(); b++) {
        seen += d_histogram[b];
        if (seen >= rank)
            return bucket_value(b);
    }
    return bucket_value(d_histogram.size() - 1);
}

void latency_probe::export_counters(const std::string& prefix,
                                    std::map<std::string, uint64_t>& out) const
{
    out[prefix + "samples"] = d_samples;
    out[prefix + "p50_ns"] = percentile(50);
    out[prefix + "p99_ns"] = percentile(99);
    out[prefix + "p999_ns"] = percentile(99.9);
    out[prefix + "max_ns"] = d_max;
    out[prefix + "dropped"] = d_dropped;
    for (size_t b = 0; b < d_histogram.size(); b++) {
        if (d_histogram[b])
            out[prefix + "hist." + std::to_string(bucket_value(b))] = d_histogram[b];
    }
}

} // namespace rdma
} // namespace gr
