/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rf_channel.h"
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using u128 = unsigned __int128;

[[noreturn]] void bad_limits(const std::string& what)
{
    throw std::invalid_argument("RF channel limits: " + what);
}

} // namespace

void rf_limits::validate() const
{
    if (freq_step_mhz == 0 || gain_step_mdb == 0)
        bad_limits("the frequency and gain steps must be at least 1");
    if (freq_min_mhz > freq_max_mhz || freq_max_mhz - freq_min_mhz < freq_step_mhz)
        bad_limits("the frequency range must span at least one step");
    if (gain_min_mdb > gain_max_mdb)
        bad_limits("the minimum gain is above the maximum");
    if (bandwidth_min_hz > bandwidth_max_hz)
        bad_limits("the minimum bandwidth is above the maximum");
    if (clip_freq(freq_reset_mhz) != freq_reset_mhz)
        bad_limits("the reset frequency " + std::to_string(freq_reset_mhz) +
                   " mHz is not in range or not a multiple of the step");
    if (clip_gain(gain_reset_mdb) != gain_reset_mdb)
        bad_limits("the reset gain " + std::to_string(gain_reset_mdb) +
                   " milli-dB is not in range or not on a step");
    if (clip_bandwidth(bandwidth_reset_hz) != bandwidth_reset_hz)
        bad_limits("the reset bandwidth is not in range");
    if (antennas == 0)
        bad_limits("a channel has at least one antenna");
}

uint64_t rf_limits::clip_freq(uint64_t mhz) const
{
    const uint64_t v = std::clamp(mhz, freq_min_mhz, freq_max_mhz);
    const uint64_t step = freq_step_mhz;
    uint64_t r = static_cast<uint64_t>((u128(v) + step / 2) / step * step);
    // A multiple outside the range moves one step in (the range spans a step).
    if (r > freq_max_mhz)
        r -= step;
    if (r < freq_min_mhz)
        r += step;
    return r;
}

int32_t rf_limits::clip_gain(int32_t mdb) const
{
    const int64_t v = std::clamp(mdb, gain_min_mdb, gain_max_mdb);
    const int64_t step = gain_step_mdb;
    int64_t g = gain_min_mdb + (v - gain_min_mdb + step / 2) / step * step;
    if (g > gain_max_mdb)
        g -= step;
    return static_cast<int32_t>(std::max<int64_t>(g, gain_min_mdb));
}

uint32_t rf_limits::clip_bandwidth(uint32_t hz) const
{
    return std::clamp(hz, bandwidth_min_hz, bandwidth_max_hz);
}

rf_channel::rf_channel(const rf_limits& limits, const device_clock& clock)
    : d_limits(limits),
      d_clock(clock),
      d_freq_mhz(limits.freq_reset_mhz),
      d_gain_mdb(limits.gain_reset_mdb),
      d_bandwidth_hz(limits.bandwidth_reset_hz)
{
    d_limits.validate();
    d_segments.reserve(max_segments);
}

regs::rf_values rf_channel::read() const
{
    regs::rf_values v;
    v.freq_min_mhz = d_limits.freq_min_mhz;
    v.freq_max_mhz = d_limits.freq_max_mhz;
    v.freq_step_mhz = d_limits.freq_step_mhz;
    v.gain_min_mdb = d_limits.gain_min_mdb;
    v.gain_max_mdb = d_limits.gain_max_mdb;
    v.gain_step_mdb = d_limits.gain_step_mdb;
    v.bandwidth_min_hz = d_limits.bandwidth_min_hz;
    v.bandwidth_max_hz = d_limits.bandwidth_max_hz;
    v.antennas = d_limits.antennas;
    v.status = regs::rf::status_bits::lo_locked; // an emulated LO settles at once
    std::lock_guard<std::mutex> lock(d_mutex);
    v.freq_mhz = d_freq_mhz;
    v.freq_time_ns = d_freq_time_ns;
    v.gain_mdb = d_gain_mdb;
    v.gain_time_ns = d_gain_time_ns;
    v.bandwidth_hz = d_bandwidth_hz;
    v.antenna = d_antenna;
    return v;
}

void rf_channel::tune(uint64_t mhz, uint64_t at_ns)
{
    change(field::freq, d_limits.clip_freq(mhz), at_ns);
}

void rf_channel::set_gain(int32_t mdb, uint64_t at_ns)
{
    change(field::gain,
           static_cast<uint64_t>(static_cast<int64_t>(d_limits.clip_gain(mdb))),
           at_ns);
}

void rf_channel::set_bandwidth(uint32_t hz)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_bandwidth_hz = d_limits.clip_bandwidth(hz);
}

bool rf_channel::set_antenna(uint32_t antenna)
{
    if (antenna >= d_limits.antennas)
        return false;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_antenna = antenna;
    return true;
}

uint64_t rf_channel::first_sample_at(uint64_t device_ns) const
{
    // The smallest k with t0 + k / rate >= T: k = ceil((T - t0) NUM / (DEN 1e9)).
    if (device_ns <= d_t0_ns)
        return 0;
    const u128 num = u128(device_ns - d_t0_ns) * d_rate_num;
    const u128 den = u128(d_rate_den) * 1000000000u;
    return static_cast<uint64_t>((num + den - 1) / den);
}

uint64_t rf_channel::time_of_sample(uint64_t sample) const
{
    // Rounded down: at rates up to 1 GS/s the first sample at or after it is `sample`.
    const u128 ns = u128(sample) * d_rate_den * 1000000000u / d_rate_num;
    return d_t0_ns + static_cast<uint64_t>(ns);
}

void rf_channel::change(field f, uint64_t value, uint64_t at_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    uint64_t since = at_ns ? at_ns : d_clock.now();
    if (d_running) {
        // Never before the first sample not computed yet: computed samples stay as
        // they were sent (and as an RC resend computes them again).
        const uint64_t wanted = at_ns ? first_sample_at(at_ns) : d_frontier;
        const uint64_t k = std::max(wanted, d_frontier);
        if (!at_ns || k != wanted)
            since = time_of_sample(k);
        auto at = std::lower_bound(
            d_segments.begin(),
            d_segments.end(),
            k,
            [](const rf_scene::segment& s, uint64_t first) { return s.first < first; });
        size_t index = static_cast<size_t>(at - d_segments.begin());
        if (index == d_segments.size() || d_segments[index].first != k) {
            if (d_segments.size() == max_segments && index > 1) {
                d_segments.erase(d_segments.begin()); // the oldest tuning is forgotten
                index--;
            }
            // Segment 0 starts at sample 0 and k is past the computed samples: the
            // tuning before k is at index - 1.
            rf_scene::segment s = d_segments[index ? index - 1 : 0];
            s.first = k;
            d_segments.insert(d_segments.begin() + index, s);
        }
        // The latest write holds from k on, also over changes placed later that took
        // effect earlier (those samples are not computed yet).
        for (size_t j = index; j < d_segments.size(); j++) {
            if (f == field::freq)
                d_segments[j].freq_mhz = value;
            else
                d_segments[j].gain_mdb = static_cast<int32_t>(value);
        }
        rebuild_integrals(index);
    }
    if (f == field::freq) {
        d_freq_mhz = value;
        d_freq_time_ns = since;
    } else {
        d_gain_mdb = static_cast<int32_t>(value);
        d_gain_time_ns = since;
    }
}

void rf_channel::rebuild_integrals(size_t from)
{
    if (from == 0 && !d_segments.empty()) {
        const rf_scene::segment& s = d_segments[0];
        d_segments[0] =
            rf_scene::start(s.freq_mhz, s.gain_mdb, d_t0_ns, d_rate_num, d_rate_den);
        from = 1;
    }
    for (size_t j = from; j < d_segments.size(); j++) {
        const rf_scene::segment& s = d_segments[j];
        d_segments[j] = rf_scene::retune(
            d_segments[j - 1], s.first, s.freq_mhz, s.gain_mdb, d_rate_num, d_rate_den);
    }
}

void rf_channel::begin_run(uint64_t t0_ns, uint32_t rate_num, uint32_t rate_den)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_running = true;
    d_t0_ns = t0_ns;
    d_rate_num = rate_num ? rate_num : 1;
    d_rate_den = rate_den ? rate_den : 1;
    d_frontier = 0;
    d_segments.clear();
    d_segments.push_back(
        rf_scene::start(d_freq_mhz, d_gain_mdb, t0_ns, d_rate_num, d_rate_den));
}

void rf_channel::end_run()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_running = false;
}

void rf_channel::advance(uint64_t end)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_frontier = std::max(d_frontier, end);
}

bool rf_channel::tuning_at(uint64_t sample,
                           rf_scene::segment& out,
                           uint64_t& next_first) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_segments.empty() || sample < d_segments.front().first)
        return false;
    auto after = std::upper_bound(
        d_segments.begin(),
        d_segments.end(),
        sample,
        [](uint64_t k, const rf_scene::segment& s) { return k < s.first; });
    out = *(after - 1);
    next_first = after == d_segments.end() ? UINT64_MAX : after->first;
    return true;
}

} // namespace emu
} // namespace rdma
} // namespace gr
