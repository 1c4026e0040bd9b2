/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream_clock.h"
#include <time.h>

namespace gr {
namespace rdma {

namespace {
using u128 = unsigned __int128;
constexpr uint64_t ns_per_s = 1000000000u;
} // namespace

stream_clock::stream_clock(rational rate,
                           uint64_t t0_ns,
                           int64_t offset_ns,
                           uint64_t error_ns,
                           uint64_t grace_ns)
    : d_rate(rate), d_t0(t0_ns), d_offset(offset_ns), d_error(error_ns), d_grace(grace_ns)
{
}

uint64_t stream_clock::samples_at(int64_t device_ns) const
{
    if (device_ns <= static_cast<int64_t>(d_t0))
        return 0;
    const u128 elapsed = static_cast<uint64_t>(device_ns) - d_t0;
    return static_cast<uint64_t>(elapsed * d_rate.num / (u128(d_rate.den) * ns_per_s));
}

uint64_t stream_clock::time_of(uint64_t k) const
{
    return d_t0 + static_cast<uint64_t>(u128(k) * d_rate.den * ns_per_s / d_rate.num);
}

uint64_t stream_clock::first_sample_from(uint64_t device_ns) const
{
    if (device_ns <= d_t0)
        return 0;
    // Smallest k with t0 + k den / num >= t: k = ceil((t - t0) num / den), in ns units.
    const u128 scaled = u128(device_ns - d_t0) * d_rate.num;
    const u128 per = u128(d_rate.den) * ns_per_s;
    return static_cast<uint64_t>((scaled + per - 1) / per);
}

uint64_t stream_clock::final_by(int64_t host_ns) const
{
    return samples_at(host_ns + d_offset - static_cast<int64_t>(d_error + d_grace));
}

uint64_t stream_clock::written_bound(int64_t host_ns) const
{
    return samples_at(host_ns + d_offset + static_cast<int64_t>(d_error));
}

int64_t stream_clock::host_time_final(uint64_t k) const
{
    // Sample count k is produced at t0 + k / rate; round up to the next ns.
    const u128 num = u128(k) * d_rate.den * ns_per_s;
    const uint64_t after_t0 = static_cast<uint64_t>((num + d_rate.num - 1) / d_rate.num);
    return static_cast<int64_t>(d_t0 + after_t0 + d_error + d_grace) - d_offset;
}

} // namespace rdma
} // namespace gr
