/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/hash.h"
#include "converter.h"
#include "rf_scene.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

namespace {

using u128 = unsigned __int128;

constexpr double two_pi = 6.283185307179586476925286766559;
// mHz times ns is 1e-12 cycles.
constexpr uint64_t pico = 1000000000000ull;
// The phase is computed exactly at every multiple of this many samples.
constexpr uint64_t phase_block = 64;

uint64_t modulus_of(uint32_t rate_num) { return 1000ull * rate_num; }

uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return static_cast<uint64_t>(u128(a % m) * (b % m) % m);
}

// The tone-independent share of a sample's phase numerator over d_modulus: the integral
// of fc up to sample k, for k in segment s.
uint64_t integral_at(const rf_scene::segment& s, uint64_t k, uint32_t den, uint64_t m)
{
    const uint64_t fc_term = mulmod(s.freq_mhz, den, m);
    return static_cast<uint64_t>((u128(s.integral) + mulmod(fc_term, k - s.first, m)) %
                                 m);
}

} // namespace

rf_scene::segment rf_scene::start(uint64_t freq_mhz,
                                  int32_t gain_mdb,
                                  uint64_t t0_ns,
                                  uint32_t rate_num,
                                  uint32_t /*rate_den*/)
{
    segment s;
    s.first = 0;
    s.freq_mhz = freq_mhz;
    s.gain_mdb = gain_mdb;
    s.integral = 0;
    s.start_phase = rate_num ? mulmod(freq_mhz, t0_ns, pico) : 0;
    return s;
}

rf_scene::segment rf_scene::retune(const segment& prev,
                                   uint64_t first,
                                   uint64_t freq_mhz,
                                   int32_t gain_mdb,
                                   uint32_t rate_num,
                                   uint32_t rate_den)
{
    segment s = prev;
    s.first = std::max(first, prev.first);
    s.freq_mhz = freq_mhz;
    s.gain_mdb = gain_mdb;
    if (rate_num)
        s.integral = integral_at(prev, s.first, rate_den, modulus_of(rate_num));
    return s;
}

rf_scene::rf_scene(const config& c)
    : d_config(c), d_modulus(modulus_of(c.rate_num)), d_rate_term{}, d_t0_term{}
{
    if (c.tone_count > max_tones)
        throw std::invalid_argument("rf_scene: " + std::to_string(c.tone_count) +
                                    " tones; at most " + std::to_string(max_tones));
    if (c.rate_num == 0 || c.rate_den == 0)
        throw std::invalid_argument("rf_scene: the sample rate must not be 0");
    if (!(std::isfinite(c.noise) && c.noise >= 0))
        throw std::invalid_argument("rf_scene: the noise deviation must be finite and "
                                    "not negative");
    for (unsigned i = 0; i < c.tone_count; i++) {
        const tone& t = c.tones[i];
        if (!(std::isfinite(t.amplitude) && t.amplitude >= 0))
            throw std::invalid_argument("rf_scene: tone " + std::to_string(i) +
                                        "'s amplitude must be finite and not negative");
        d_rate_term[i] = mulmod(t.freq_mhz, c.rate_den, d_modulus);
        d_t0_term[i] = mulmod(t.freq_mhz, c.t0_ns, pico);
    }
    // The noise is the air's, not the channel's: a function of the run's start and the
    // sample index, the same for every channel started at one time.
    d_noise_key = splitmix64(c.t0_ns ^ 0x5CE7E5CE7E000000ull);
}

long double rf_scene::phase_cycles(unsigned i, const segment& s, uint64_t k) const
{
    // (f_i t0 - fc(0) t0) / 1e12 + (f_i DEN k - DEN sum fc) / (1000 NUM), mod 1; both
    // numerators exact, so only the final division rounds.
    const uint64_t m = d_modulus;
    const uint64_t t0_part = (d_t0_term[i] + pico - s.start_phase % pico) % pico;
    const uint64_t tone_part = mulmod(d_rate_term[i], k, m);
    const uint64_t rate_part =
        (tone_part + m - integral_at(s, k, d_config.rate_den, m)) % m;
    long double cycles = static_cast<long double>(t0_part) / pico +
                         static_cast<long double>(rate_part) / m;
    cycles -= std::floor(cycles);
    return cycles;
}

void rf_scene::generate(const segment& s,
                        uint64_t first,
                        size_t count,
                        uint8_t* out) const
{
    const config& c = d_config;
    const double gain = std::pow(10.0, s.gain_mdb / 20000.0);
    const size_t size = item_size(c.format);
    // Per tone: amplitude at this gain, and the rotation by one sample's phase step.
    std::array<double, max_tones> amplitude{}, step_re{}, step_im{};
    const uint64_t fc_term = mulmod(s.freq_mhz, c.rate_den, d_modulus);
    for (unsigned i = 0; i < c.tone_count; i++) {
        amplitude[i] = c.tones[i].amplitude * gain;
        const uint64_t step = (d_rate_term[i] + d_modulus - fc_term) % d_modulus;
        const double rad =
            two_pi * static_cast<double>(static_cast<long double>(step) / d_modulus);
        step_re[i] = std::cos(rad);
        step_im[i] = std::sin(rad);
    }
    const auto& table = signal_detail::gaussian_table();
    const double noise = c.noise * gain;
    std::array<double, max_tones> re{}, im{};
    const uint64_t end = first + count;
    uint64_t exact = std::max(s.first, first - first % phase_block);
    for (uint64_t k = exact; k < end; k++) {
        if (k == exact) {
            for (unsigned i = 0; i < c.tone_count; i++) {
                const double rad = two_pi * static_cast<double>(phase_cycles(i, s, k));
                re[i] = std::cos(rad) * amplitude[i];
                im[i] = std::sin(rad) * amplitude[i];
            }
            exact = k - k % phase_block + phase_block;
        }
        if (k >= first) {
            double sum_re = 0, sum_im = 0;
            for (unsigned i = 0; i < c.tone_count; i++) {
                sum_re += re[i];
                sum_im += im[i];
            }
            if (noise > 0) {
                const uint64_t h = splitmix64(d_noise_key ^ k);
                sum_re += table[h & 0xFFFF] * noise;
                sum_im += table[(h >> 16) & 0xFFFF] * noise;
            }
            signal_detail::store_sample(c.format,
                                        static_cast<float>(sum_re),
                                        static_cast<float>(sum_im),
                                        out + (k - first) * size);
        }
        for (unsigned i = 0; i < c.tone_count; i++) {
            const double next_re = re[i] * step_re[i] - im[i] * step_im[i];
            im[i] = re[i] * step_im[i] + im[i] * step_re[i];
            re[i] = next_re;
        }
    }
}

} // namespace rdma
} // namespace gr
