/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The RF scene: tones where a tuned radio sees them, retunes that move them without a
// phase jump, a phase that does not drift over 1e8 samples, gain, noise, saturation.

#include "rf_scene.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <vector>

using namespace gr::rdma;

namespace {

using cf = std::complex<double>;
constexpr double two_pi = 6.283185307179586476925286766559;

rf_scene::config one_tone(uint64_t freq_mhz, float amplitude, uint32_t num, uint32_t den)
{
    rf_scene::config c;
    c.tone_count = 1;
    c.tones[0] = { freq_mhz, amplitude };
    c.format = sample_format::fc32;
    c.rate_num = num;
    c.rate_den = den;
    c.t0_ns = 1790000000123456789ull;
    return c;
}

std::vector<cf> samples(const rf_scene& scene,
                        const std::vector<rf_scene::segment>& segments,
                        uint64_t count)
{
    std::vector<float> iq(2 * count);
    auto* out = reinterpret_cast<uint8_t*>(iq.data());
    for (size_t n = 0; n < segments.size(); n++) {
        const uint64_t end = n + 1 < segments.size() ? segments[n + 1].first : count;
        scene.generate(segments[n],
                       segments[n].first,
                       end - segments[n].first,
                       out + 8 * segments[n].first);
    }
    std::vector<cf> x(count);
    for (uint64_t k = 0; k < count; k++)
        x[k] = cf(iq[2 * k], iq[2 * k + 1]);
    return x;
}

// The DFT bin with the most power (a plain DFT: the test's sizes are small).
size_t peak_bin(const std::vector<cf>& x)
{
    const size_t n = x.size();
    size_t best = 0;
    double best_power = -1;
    for (size_t b = 0; b < n; b++) {
        cf sum = 0;
        for (size_t k = 0; k < n; k++)
            sum +=
                x[k] * std::polar(1.0, -two_pi * double(b) * double(k % n) / double(n));
        if (std::norm(sum) > best_power) {
            best_power = std::norm(sum);
            best = b;
        }
    }
    return best;
}

// Cycles per sample between samples k and k + 1.
double step_cycles(const std::vector<cf>& x, size_t k)
{
    return std::arg(x[k + 1] * std::conj(x[k])) / two_pi;
}

// |a - b| on the circle of cycles.
double cycle_distance(long double a, long double b)
{
    long double d = std::fmod(std::fabs(a - b), 1.0L);
    return static_cast<double>(std::min(d, 1 - d));
}

} // namespace

class qa_rf_scene : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rf_scene);
    CPPUNIT_TEST(test_a_tone_appears_at_f_minus_fc);
    CPPUNIT_TEST(test_gain_scales_the_scene);
    CPPUNIT_TEST(test_retune_moves_the_tone_at_its_sample_without_a_jump);
    CPPUNIT_TEST(test_phase_is_the_sample_time_times_the_offset);
    CPPUNIT_TEST(test_no_drift_over_1e8_samples_and_1000_retunes);
    CPPUNIT_TEST(test_any_call_boundaries_give_the_same_samples);
    CPPUNIT_TEST(test_sc16_saturates_fc32_does_not);
    CPPUNIT_TEST(test_noise_deviation_and_repeatability);
    CPPUNIT_TEST(test_bad_configurations_are_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_a_tone_appears_at_f_minus_fc()
    {
        // 1 MS/s, 1000 samples: 1 kHz bins. 100.25 MHz seen at 100 MHz is +250 kHz;
        // seen at 100.35 MHz it is -100 kHz, bin 900.
        const rf_scene scene(one_tone(100250000000ull, 0.25f, 1000000, 1));
        const uint64_t t0 = scene.configuration().t0_ns;
        auto x =
            samples(scene, { rf_scene::start(100000000000ull, 0, t0, 1000000, 1) }, 1000);
        CPPUNIT_ASSERT_EQUAL(size_t(250), peak_bin(x));
        x = samples(scene, { rf_scene::start(100350000000ull, 0, t0, 1000000, 1) }, 1000);
        CPPUNIT_ASSERT_EQUAL(size_t(900), peak_bin(x));
        // The amplitude is the tone's at 0 dB.
        for (const cf& v : x)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(0.25, std::abs(v), 1e-6);
    }

    void test_gain_scales_the_scene()
    {
        const rf_scene scene(one_tone(100250000000ull, 0.01f, 1000000, 1));
        const uint64_t t0 = scene.configuration().t0_ns;
        for (int32_t gain : { 0, 6000, 20000, 40000, -10000 }) {
            const auto x = samples(
                scene, { rf_scene::start(100000000000ull, gain, t0, 1000000, 1) }, 64);
            const double expect = 0.01 * std::pow(10.0, gain / 20000.0);
            for (const cf& v : x)
                CPPUNIT_ASSERT_DOUBLES_EQUAL(expect, std::abs(v), expect * 1e-6);
        }
    }

    void test_retune_moves_the_tone_at_its_sample_without_a_jump()
    {
        // A rate of 1000003/3 S/s: sample times fall between whole ns, and neither fc
        // makes a whole number of cycles per sample (which would hide a phase jump).
        // Tuned 100 MHz, then 100.1 MHz from sample 1234: the tone moves from +250 kHz
        // to +150 kHz, measured sample to sample, exactly there.
        const uint32_t num = 1000003, den = 3;
        const rf_scene scene(one_tone(100250000000ull, 0.5f, num, den));
        const uint64_t t0 = scene.configuration().t0_ns;
        const auto s0 = rf_scene::start(100000000000ull, 3000, t0, num, den);
        const auto s1 = rf_scene::retune(s0, 1234, 100100000000ull, 3000, num, den);
        const auto x = samples(scene, { s0, s1 }, 3000);
        const double before = 250e3 * den / num, after = 150e3 * den / num; // cycles
        for (size_t k = 0; k + 1 < x.size(); k++) {
            const double want = k < 1234 ? before : after;
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                std::to_string(k), 0.0, cycle_distance(step_cycles(x, k), want), 1e-6);
        }
        // No jump: the phase at sample 1234 is the one the old tuning led to.
        const long double at = scene.phase_cycles(0, s0, 1234);
        CPPUNIT_ASSERT(cycle_distance(at, scene.phase_cycles(0, s1, 1234)) < 1e-12);
        CPPUNIT_ASSERT(cycle_distance(at + (long double)before,
                                      scene.phase_cycles(0, s1, 1235)) > 1e-3);
    }

    void test_phase_is_the_sample_time_times_the_offset()
    {
        // While fc holds, tone i's phase at sample k is (f_i - fc) (t0 + k / rate), in
        // cycles. 1.5 Hz offset, rate 7 S/s: exact values are easy to write down.
        rf_scene::config c = one_tone(100000001500ull, 1.0f, 7, 1);
        c.t0_ns = 3000000001ull; // 3.000000001 s
        const rf_scene scene(c);
        const auto s = rf_scene::start(100000000000ull, 0, c.t0_ns, 7, 1);
        for (uint64_t k : { 0ull, 1ull, 6ull, 7ull, 1000001ull }) {
            // 1.5 * (3.000000001 + k / 7) cycles
            const long double want = 1.5L * (3.000000001L + (long double)k / 7);
            CPPUNIT_ASSERT(cycle_distance(want, scene.phase_cycles(0, s, k)) < 1e-9);
        }
    }

    void test_no_drift_over_1e8_samples_and_1000_retunes()
    {
        // Rate 1e6/3, tone 12345.678 Hz above fc: at sample 1e8 the phase is
        // 12345.678 * 3e8 / 1e6 = 3703703.4 cycles, so 0.4 of a cycle (t0 = 0).
        const uint32_t num = 1000000, den = 3;
        rf_scene::config c = one_tone(100012345678ull, 1.0f, num, den);
        c.t0_ns = 0;
        const rf_scene scene(c);
        auto s = rf_scene::start(100000000000ull, 0, 0, num, den);
        const uint64_t k = 100000000;
        CPPUNIT_ASSERT(cycle_distance(0.4L, scene.phase_cycles(0, s, k)) < 1e-9);
        std::vector<uint8_t> one(8);
        scene.generate(s, k, 1, one.data());
        float iq[2];
        std::memcpy(iq, one.data(), 8);
        CPPUNIT_ASSERT(cycle_distance(0.4L, std::atan2(iq[1], iq[0]) / two_pi + 1) <
                       1e-6);

        // Retuned 1000 times between two frequencies, 1e5 samples each, at a rate where
        // fc makes no whole number of cycles per sample: the phase at 1e8 is the sum of
        // each stretch's offset times its length, exactly.
        const uint32_t odd = 1000003;
        const rf_scene other(one_tone(100012345678ull, 1.0f, odd, den));
        s = rf_scene::start(100000000000ull, 0, other.configuration().t0_ns, odd, den);
        const uint64_t fa = 100000000000ull,
                       fb = 100010000000ull; // +12345.678, +2345.678 Hz
        unsigned __int128 numerator = 0;     // mHz * samples * den, over 1000 * num
        for (uint64_t n = 0; n < 1000; n++) {
            const uint64_t fc = n % 2 ? fb : fa;
            if (n > 0)
                s = rf_scene::retune(s, n * 100000, fc, 0, odd, den);
            numerator += (unsigned __int128)(100012345678ull - fc) * 100000 * den;
        }
        // Plus sample 0's share: (f - fa) t0, in 1e-12 cycles.
        const uint64_t t0 = other.configuration().t0_ns;
        const uint64_t t0_share = (uint64_t)((unsigned __int128)12345678 *
                                             (t0 % 1000000000000ull) % 1000000000000ull);
        const unsigned __int128 m = 1000ull * odd;
        const long double want = (long double)(uint64_t)(numerator % m) / (long double)m +
                                 (long double)t0_share / 1e12L;
        CPPUNIT_ASSERT(cycle_distance(want, other.phase_cycles(0, s, k)) < 1e-12);
        other.generate(s, k, 1, one.data());
        std::memcpy(iq, one.data(), 8);
        CPPUNIT_ASSERT(cycle_distance(want, std::atan2(iq[1], iq[0]) / two_pi + 1) <
                       1e-6);
    }

    void test_any_call_boundaries_give_the_same_samples()
    {
        // An RC resend computes a packet again from its own first sample: it must be
        // what was sent, bit for bit, in both formats.
        for (sample_format format : { sample_format::sc16, sample_format::fc32 }) {
            rf_scene::config c = one_tone(100250000000ull, 0.3f, 20000000, 3);
            c.tone_count = 3;
            c.tones[1] = { 99900000000ull, 0.2f };
            c.tones[2] = { 100003000000ull, 0.1f };
            c.noise = 0.01f;
            c.format = format;
            const rf_scene scene(c);
            const auto s0 = rf_scene::start(100000000000ull, 1500, c.t0_ns, 20000000, 3);
            const auto s = rf_scene::retune(s0, 77, 100001000000ull, 2500, 20000000, 3);
            const size_t size = item_size(format), n = 1000;
            const uint64_t first = 123456789;
            std::vector<uint8_t> whole(n * size), parts(n * size);
            scene.generate(s, first, n, whole.data());
            for (size_t at = 0, len = 1; at < n; at += len, len = len * 3 % 97 + 1) {
                len = std::min(len, n - at);
                scene.generate(s, first + at, len, parts.data() + at * size);
            }
            CPPUNIT_ASSERT(whole == parts);
        }
    }

    void test_sc16_saturates_fc32_does_not()
    {
        rf_scene::config c = one_tone(100000000000ull, 0.9f, 1000000, 1); // at DC
        c.t0_ns = 0; // phase 0: all on I
        const auto s = rf_scene::start(100000000000ull, 20000, 0, 1000000, 1); // x10
        c.format = sample_format::fc32;
        float f[2];
        rf_scene(c).generate(s, 0, 1, reinterpret_cast<uint8_t*>(f));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(9.0, f[0], 1e-5);
        c.format = sample_format::sc16;
        c.tones[0].amplitude = 0.5f;
        int16_t v[2];
        rf_scene(c).generate(s, 0, 1, reinterpret_cast<uint8_t*>(v));
        CPPUNIT_ASSERT_EQUAL(int16_t(32767), v[0]);
        CPPUNIT_ASSERT_EQUAL(int16_t(0), v[1]);
        const auto quiet = rf_scene::start(100000000000ull, 0, 0, 1000000, 1);
        rf_scene(c).generate(quiet, 0, 1, reinterpret_cast<uint8_t*>(v));
        CPPUNIT_ASSERT_EQUAL(int16_t(16384), v[0]);
    }

    void test_noise_deviation_and_repeatability()
    {
        rf_scene::config c;
        c.tone_count = 0;
        c.noise = 0.05f;
        c.format = sample_format::fc32;
        c.rate_num = 1000000;
        c.t0_ns = 42;
        const auto s = rf_scene::start(100000000000ull, 6000, c.t0_ns, 1000000, 1);
        const size_t n = 100000;
        const auto x = samples(rf_scene(c), { s }, n);
        double power = 0;
        for (const cf& v : x)
            power += std::norm(v);
        const double sigma = std::sqrt(power / (2 * n)); // per component
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.05 * std::pow(10.0, 0.3), sigma, 0.05 * 0.05 * 2);
        // The air's, not the channel's: the same run start gives the same noise.
        CPPUNIT_ASSERT(x == samples(rf_scene(c), { s }, n));
        c.t0_ns = 43;
        CPPUNIT_ASSERT(x != samples(rf_scene(c), { s }, n));
    }

    void test_bad_configurations_are_refused()
    {
        rf_scene::config c = one_tone(1, 0.5f, 1, 1);
        c.tone_count = 9;
        CPPUNIT_ASSERT_THROW(rf_scene{ c }, std::invalid_argument);
        c = one_tone(1, 0.5f, 0, 1);
        CPPUNIT_ASSERT_THROW(rf_scene{ c }, std::invalid_argument);
        c = one_tone(1, NAN, 1, 1);
        CPPUNIT_ASSERT_THROW(rf_scene{ c }, std::invalid_argument);
        c = one_tone(1, -0.1f, 1, 1);
        CPPUNIT_ASSERT_THROW(rf_scene{ c }, std::invalid_argument);
        c = one_tone(1, 0.5f, 1, 1);
        c.noise = INFINITY;
        CPPUNIT_ASSERT_THROW(rf_scene{ c }, std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rf_scene);
