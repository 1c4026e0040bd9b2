/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "hash.h"
#include "signal_source.h"
#include <gnuradio/rdma/ramp.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

// Sum of four uniforms on [-0.5, 0.5) has variance 1/3: scale to unit variance.
float approx_gaussian(uint64_t bits)
{
    float sum = 0;
    for (int i = 0; i < 4; i++)
        sum += static_cast<float>((bits >> (16 * i)) & 0xFFFF) / 65536.0f - 0.5f;
    return sum * 1.7320508f;
}

void store_sample(sample_format format, float i, float q, uint8_t* out)
{
    if (format == sample_format::fc32) {
        const float iq[2] = { i, q };
        std::memcpy(out, iq, sizeof(iq));
    } else {
        auto to_int16 = [](float v) {
            return static_cast<int16_t>(
                std::lround(std::clamp(v, -1.0f, 1.0f) * 32767.0f));
        };
        const int16_t iq[2] = { to_int16(i), to_int16(q) };
        std::memcpy(out, iq, sizeof(iq));
    }
}

} // namespace

signal_source::signal_source(const signal_config& config) : d_config(config)
{
    if (!(config.sample_rate > 0))
        throw std::invalid_argument("signal_source: sample rate must be positive");
}

void signal_source::generate(uint64_t first, size_t count, uint8_t* out) const
{
    switch (d_config.kind) {
    case signal_kind::ramp:
        ramp_fill(d_config.format, first, count, out);
        break;
    case signal_kind::tone:
        generate_tone(first, count, out);
        break;
    case signal_kind::noise:
        generate_noise(first, count, out);
        break;
    }
}

void signal_source::generate_tone(uint64_t first, size_t count, uint8_t* out) const
{
    // Exact phase at the first sample (cycles per sample times k, reduced mod 1 in long
    // double), then a rotation recurrence: a packet is short, so the drift is negligible
    // and every packet starts exact again.
    const long double cycles_per_sample =
        static_cast<long double>(d_config.tone_freq_hz) / d_config.sample_rate;
    const long double start_cycles = std::fmod(cycles_per_sample * first, 1.0L);
    double phase = two_pi * static_cast<double>(start_cycles);
    const double step = two_pi * static_cast<double>(cycles_per_sample);
    double re = std::cos(phase) * d_config.amplitude;
    double im = std::sin(phase) * d_config.amplitude;
    const double c = std::cos(step), s = std::sin(step);
    const size_t size = item_size(d_config.format);
    for (size_t n = 0; n < count; n++) {
        store_sample(d_config.format,
                     static_cast<float>(re),
                     static_cast<float>(im),
                     out + n * size);
        const double next_re = re * c - im * s;
        im = re * s + im * c;
        re = next_re;
    }
}

// Unit Gaussian values, computed once: noise then costs one hash per sample, so the
// emulator keeps up with tens of MS/s.
static const std::array<float, 65536>& gaussian_table()
{
    static const auto table = [] {
        std::array<float, 65536> t{};
        for (size_t i = 0; i < t.size(); i++)
            t[i] = approx_gaussian(splitmix64(0xA5A5A5A5ull ^ i));
        return t;
    }();
    return table;
}

void signal_source::generate_noise(uint64_t first, size_t count, uint8_t* out) const
{
    const auto& table = gaussian_table();
    const uint64_t key = static_cast<uint64_t>(d_config.seed) << 40;
    const size_t size = item_size(d_config.format);
    for (size_t n = 0; n < count; n++) {
        const uint64_t h = splitmix64(key ^ (first + n));
        const float i = table[h & 0xFFFF] * d_config.amplitude;
        const float q = table[(h >> 16) & 0xFFFF] * d_config.amplitude;
        store_sample(d_config.format, i, q, out + n * size);
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
