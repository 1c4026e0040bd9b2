/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream_clock.h"
#include <time.h>
#include <algorithm>

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
    : d_offset(offset_ns), d_error(error_ns), d_grace(grace_ns)
{
    d_segments[0] = { 0, t0_ns, rate };
}

void stream_clock::continue_at(uint64_t first, uint64_t t0_ns, rational rate)
{
    if (d_count == max_segments) {
        for (size_t i = 1; i < max_segments; i++)
            d_segments[i - 1] = d_segments[i];
        d_count--;
    }
    d_segments[d_count++] = { first, t0_ns, rate };
}

stream_clock stream_clock::with_estimate(int64_t offset_ns, uint64_t error_ns) const
{
    stream_clock c = *this;
    c.d_offset = offset_ns;
    c.d_error = error_ns;
    return c;
}

uint64_t stream_clock::segment::samples_at(uint64_t device_ns) const
{
    if (device_ns <= t0)
        return 0;
    const u128 elapsed = device_ns - t0;
    return static_cast<uint64_t>(elapsed * rate.num / (u128(rate.den) * ns_per_s));
}

uint64_t stream_clock::segment::time_of(uint64_t k) const
{
    return t0 + static_cast<uint64_t>(u128(k - first) * rate.den * ns_per_s / rate.num);
}

uint64_t stream_clock::segment::first_from(uint64_t device_ns) const
{
    if (device_ns <= t0)
        return first;
    // Smallest j with t0 + j den / num >= t: j = ceil((t - t0) num / den), in ns units.
    const u128 scaled = u128(device_ns - t0) * rate.num;
    const u128 per = u128(rate.den) * ns_per_s;
    return first + static_cast<uint64_t>((scaled + per - 1) / per);
}

const stream_clock::segment& stream_clock::segment_of(uint64_t k) const
{
    size_t i = d_count - 1;
    while (i > 0 && k < d_segments[i].first)
        i--;
    return d_segments[i];
}

stream_clock stream_clock::with_share(const share_layout& share) const
{
    stream_clock c = *this;
    c.d_share = share;
    return c;
}

uint64_t stream_clock::samples_at(int64_t device_ns) const
{
    return d_share.local_below(stream_samples_at(device_ns));
}

uint64_t stream_clock::stream_samples_at(int64_t device_ns) const
{
    const uint64_t t = device_ns > 0 ? static_cast<uint64_t>(device_ns) : 0;
    // The latest run that has started by t; an earlier run ended at the next's first.
    size_t i = d_count - 1;
    while (i > 0 && t < d_segments[i].t0)
        i--;
    const segment& s = d_segments[i];
    const uint64_t produced = s.first + s.samples_at(t);
    return i + 1 < d_count ? std::min(produced, d_segments[i + 1].first) : produced;
}

uint64_t stream_clock::time_of(uint64_t k) const
{
    const uint64_t s = d_share.stream_sample(k);
    return segment_of(s).time_of(s);
}

uint64_t stream_clock::first_sample_from(uint64_t device_ns) const
{
    return d_share.local_below(stream_first_from(device_ns));
}

uint64_t stream_clock::stream_first_from(uint64_t device_ns) const
{
    size_t i = d_count - 1;
    while (i > 0 && device_ns <= d_segments[i - 1].time_of(d_segments[i].first - 1))
        i--;
    // Segment i is the first whose samples reach device_ns (or the last one).
    const segment& s = d_segments[i];
    const uint64_t k = s.first_from(device_ns);
    return i + 1 < d_count ? std::min(k, d_segments[i + 1].first) : k;
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
    // Sample count k is complete once sample k - 1 is taken (at its time, rounded up
    // to the next ns); count 0 at once.
    if (k == 0)
        return static_cast<int64_t>(d_segments[0].t0 + d_error + d_grace) - d_offset;
    k = d_share.stream_sample(k - 1) + 1; // a share's count: the stream's up to its last
    const segment& s = segment_of(k - 1);
    const u128 num = u128(k - s.first) * s.rate.den * ns_per_s;
    const uint64_t after_t0 = static_cast<uint64_t>((num + s.rate.num - 1) / s.rate.num);
    return static_cast<int64_t>(s.t0 + after_t0 + d_error + d_grace) - d_offset;
}

} // namespace rdma
} // namespace gr
