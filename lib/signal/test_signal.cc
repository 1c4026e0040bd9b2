/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/hash.h"
#include "converter.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/test_signal.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gr {
namespace rdma {

using signal_detail::clip;
using signal_detail::gaussian_table;
using signal_detail::store_sample;

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;
// The tone's phase is computed exactly at every multiple of this many samples.
constexpr uint64_t phase_block = 32;
// How far the saturating signals overdrive the converter.
constexpr float overdrive = 4.0f;

const char* const kind_names[test_signal_kinds] = { "ramp",         "tone",
                                                    "noise",        "clipped_noise",
                                                    "clipped_tone", "square",
                                                    "extremes",     "scene" };

float float_of_bits(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// The extremes cycle. Items 0 and 1 are the constant gap marks gr-rdma once armed
// (sc16 (-32768, -32768) then (+32767, +32767); fc32 two NaNs), so every message slot
// of a ring sees them as real data; then what else a converter's output can hold.
struct extreme_item {
    int16_t i16, q16;
    uint32_t i32, q32; // float bits
    int8_t i8, q8;     // sc8: the same extremes of an 8-bit converter
};
const std::array<extreme_item, 8>& extremes_cycle()
{
    static const std::array<extreme_item, 8> cycle = [] {
        const auto bits = [](float f) {
            uint32_t b;
            std::memcpy(&b, &f, 4);
            return b;
        };
        const float inf = std::numeric_limits<float>::infinity();
        const float tiny = std::numeric_limits<float>::denorm_min();
        const float big = std::numeric_limits<float>::max();
        return std::array<extreme_item, 8>{ {
            { -32768, -32768, 0x7FC0DEADu, 0x7FC0DEADu, -128, -128 },
            { 32767, 32767, 0x7FC0BEEFu, 0x7FC0BEEFu, 127, 127 },
            { -32768, 32767, bits(1.0f), bits(-1.0f), -128, 127 },
            { 32767, -32768, bits(-1.0f), bits(1.0f), 127, -128 },
            { 0, 0, bits(inf), bits(-inf), 0, 0 },
            { -1, -1, bits(tiny), bits(-tiny), -1, -1 },
            { 1, -1, bits(big), bits(-big), 1, -1 },
            { -32768, 0, bits(0.0f), bits(-0.0f), -128, 0 },
        } };
    }();
    return cycle;
}

// Sum of four uniforms on [-0.5, 0.5) has variance 1/3: scale to unit variance.
float approx_gaussian(uint64_t bits)
{
    float sum = 0;
    for (int i = 0; i < 4; i++)
        sum += static_cast<float>((bits >> (16 * i)) & 0xFFFF) / 65536.0f - 0.5f;
    return sum * 1.7320508f;
}

} // namespace

const std::array<float, 65536>& signal_detail::gaussian_table()
{
    static const auto table = [] {
        std::array<float, 65536> t{};
        for (size_t i = 0; i < t.size(); i++)
            t[i] = approx_gaussian(splitmix64(0xA5A5A5A5ull ^ i));
        return t;
    }();
    return table;
}

test_signal_kind parse_test_signal_kind(const std::string& name)
{
    for (uint32_t k = 0; k < test_signal_kinds; k++)
        if (name == kind_names[k])
            return static_cast<test_signal_kind>(k);
    std::string list;
    for (const char* n : kind_names)
        list += (list.empty() ? "" : "|") + std::string(n);
    throw std::invalid_argument("test signal '" + name +
                                "' is unknown: expected one of " + list);
}

const char* to_string(test_signal_kind kind)
{
    const auto k = static_cast<uint32_t>(kind);
    return k < test_signal_kinds ? kind_names[k] : "unknown";
}

test_signal::test_signal(const test_signal_config& config) : d_config(config)
{
    if (!(config.sample_rate > 0))
        throw std::invalid_argument("test_signal: sample rate must be positive");
    if (static_cast<uint32_t>(config.kind) >= test_signal_kinds)
        throw std::invalid_argument("test_signal: unknown signal kind " +
                                    std::to_string(static_cast<uint32_t>(config.kind)));
    if (config.kind == test_signal_kind::scene)
        throw std::invalid_argument(
            "test_signal: signal 'scene' depends on the RF channel's tuning and the "
            "device time; only the emulator computes it (docs/radio.md)");
}

void test_signal::generate(uint64_t first, size_t count, uint8_t* out) const
{
    switch (d_config.kind) {
    case test_signal_kind::ramp:
        ramp_fill(d_config.format, first, count, out);
        break;
    case test_signal_kind::tone:
    case test_signal_kind::clipped_tone:
        generate_tone(first, count, out);
        break;
    case test_signal_kind::noise:
        generate_noise(first, count, out, d_config.amplitude);
        break;
    case test_signal_kind::clipped_noise:
        generate_noise(first, count, out, overdrive);
        break;
    case test_signal_kind::square:
        generate_square(first, count, out);
        break;
    case test_signal_kind::extremes:
        generate_extremes(first, count, out);
        break;
    case test_signal_kind::scene: // refused by the constructor
        break;
    }
}

void test_signal::generate_tone(uint64_t first, size_t count, uint8_t* out) const
{
    // Exact phase at each multiple of phase_block (cycles per sample times k, reduced
    // mod 1 in long double), a rotation recurrence in between: the drift stays
    // negligible, and any sample comes out the same whatever call computes it.
    const bool clipped = d_config.kind == test_signal_kind::clipped_tone;
    const double amplitude = clipped ? overdrive : d_config.amplitude;
    const long double cycles_per_sample =
        static_cast<long double>(d_config.freq_hz) / d_config.sample_rate;
    const double step = two_pi * static_cast<double>(cycles_per_sample);
    const double c = std::cos(step), s = std::sin(step);
    const size_t size = item_size(d_config.format);
    const uint64_t end = first + count;
    for (uint64_t block = first - first % phase_block; block < end;
         block += phase_block) {
        const long double cycles = std::fmod(cycles_per_sample * block, 1.0L);
        const double phase = two_pi * static_cast<double>(cycles);
        double re = std::cos(phase) * amplitude;
        double im = std::sin(phase) * amplitude;
        const uint64_t block_end = std::min(block + phase_block, end);
        for (uint64_t k = block; k < block_end; k++) {
            if (k >= first) {
                uint8_t* item = out + (k - first) * size;
                if (clipped) { // a real tone on I and Q alike, in phase
                    const float v = clip(static_cast<float>(re));
                    store_sample(d_config.format, v, v, item);
                } else {
                    store_sample(d_config.format,
                                 static_cast<float>(re),
                                 static_cast<float>(im),
                                 item);
                }
            }
            const double next_re = re * c - im * s;
            im = re * s + im * c;
            re = next_re;
        }
    }
}

void test_signal::generate_noise(uint64_t first,
                                 size_t count,
                                 uint8_t* out,
                                 float scale) const
{
    const auto& table = gaussian_table();
    const bool clipped = d_config.kind == test_signal_kind::clipped_noise;
    const uint64_t key = static_cast<uint64_t>(d_config.seed) << 40;
    const size_t size = item_size(d_config.format);
    for (size_t n = 0; n < count; n++) {
        const uint64_t h = splitmix64(key ^ (first + n));
        float i = table[h & 0xFFFF] * scale;
        float q = table[(h >> 16) & 0xFFFF] * scale;
        if (clipped) {
            i = clip(i);
            q = clip(q);
        }
        store_sample(d_config.format, i, q, out + n * size);
    }
}

void test_signal::generate_square(uint64_t first, size_t count, uint8_t* out) const
{
    // Half a period is a whole number of samples, so that every sample is exact.
    const double half = d_config.sample_rate / (2 * std::fabs(d_config.freq_hz));
    const uint64_t half_period =
        std::isfinite(half) && half >= 1 ? static_cast<uint64_t>(std::llround(half)) : 1;
    const size_t size = item_size(d_config.format);
    for (size_t n = 0; n < count; n++) {
        const float v = ((first + n) / half_period) % 2 ? -1.0f : 1.0f;
        store_sample(d_config.format, v, v, out + n * size);
    }
}

void test_signal::generate_extremes(uint64_t first, size_t count, uint8_t* out) const
{
    const auto& cycle = extremes_cycle();
    const size_t size = item_size(d_config.format);
    for (size_t n = 0; n < count; n++) {
        const extreme_item& e = cycle[(first + n) % cycle.size()];
        if (d_config.format == sample_format::fc32) {
            store_sample(d_config.format,
                         float_of_bits(e.i32),
                         float_of_bits(e.q32),
                         out + n * size);
        } else if (d_config.format == sample_format::sc16) {
            const int16_t iq[2] = { e.i16, e.q16 };
            std::memcpy(out + n * size, iq, sizeof(iq));
        } else {
            const int8_t iq[2] = { e.i8, e.q8 };
            std::memcpy(out + n * size, iq, sizeof(iq));
        }
    }
}

} // namespace rdma
} // namespace gr
