/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/test_signal.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace gr::rdma;

class qa_test_signal : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_test_signal);
    CPPUNIT_TEST(test_ramp_sc16);
    CPPUNIT_TEST(test_ramp_fc32);
    CPPUNIT_TEST(test_ramp_sc8);
    CPPUNIT_TEST(test_sc8_saturates_like_twos_complement);
    CPPUNIT_TEST(test_sc8_extremes_are_the_8_bit_corners);
    CPPUNIT_TEST(test_ramp_fill_is_ramp_item_across_wraps);
    CPPUNIT_TEST(test_tone_is_continuous_across_calls);
    CPPUNIT_TEST(test_noise_is_deterministic_with_right_power);
    CPPUNIT_TEST(test_sc16_saturates_like_twos_complement);
    CPPUNIT_TEST(test_clipped_noise_saturates_i_and_q_independently);
    CPPUNIT_TEST(test_clipped_tone_at_half_rate_alternates_full_scale);
    CPPUNIT_TEST(test_square_is_full_scale);
    CPPUNIT_TEST(test_extremes_hold_the_old_marks_and_special_floats);
    CPPUNIT_TEST(test_any_call_boundaries_give_the_same_samples);
    CPPUNIT_TEST(test_names_round_trip);
    CPPUNIT_TEST_SUITE_END();

    static test_signal_config config(test_signal_kind kind, sample_format format)
    {
        test_signal_config c;
        c.kind = kind;
        c.format = format;
        c.sample_rate = 1e6;
        c.freq_hz = 12345.0;
        c.amplitude = 0.25f;
        c.seed = 7;
        return c;
    }

public:
    void test_ramp_sc16()
    {
        test_signal s(config(test_signal_kind::ramp, sample_format::sc16));
        const uint64_t first = 0x1234FFFEull; // crosses a 16-bit boundary of I
        int16_t iq[4 * 2];
        s.generate(first, 4, reinterpret_cast<uint8_t*>(iq));
        for (int n = 0; n < 4; n++) {
            const uint64_t k = first + n;
            CPPUNIT_ASSERT_EQUAL(static_cast<int16_t>(k & 0xFFFF), iq[2 * n]);
            CPPUNIT_ASSERT_EQUAL(static_cast<int16_t>((k >> 16) & 0xFFFF), iq[2 * n + 1]);
        }
        CPPUNIT_ASSERT_EQUAL(int16_t(-2), iq[0]); // 0xFFFE as int16
        CPPUNIT_ASSERT_EQUAL(int16_t(0x1234), iq[1]);
        CPPUNIT_ASSERT_EQUAL(int16_t(0), iq[4]);
        CPPUNIT_ASSERT_EQUAL(int16_t(0x1235), iq[5]);
    }

    void test_ramp_fc32()
    {
        test_signal s(config(test_signal_kind::ramp, sample_format::fc32));
        const uint64_t first = (1ull << 24) - 2; // I wraps at 2^24
        float iq[4 * 2];
        s.generate(first, 4, reinterpret_cast<uint8_t*>(iq));
        const float expect[4] = { 16777214.0f, 16777215.0f, 0.0f, 1.0f };
        for (int n = 0; n < 4; n++) {
            CPPUNIT_ASSERT_EQUAL(expect[n], iq[2 * n]);
            CPPUNIT_ASSERT_EQUAL(0.0f, iq[2 * n + 1]);
        }
        uint8_t item[8];
        ramp_item(sample_format::fc32, first + 3, item);
        CPPUNIT_ASSERT(std::memcmp(item, &iq[6], 8) == 0);
    }

    void test_ramp_sc8()
    {
        // I = low 8 bits of k, Q = the next 8, as int8: the item is k mod 2^16.
        test_signal s(config(test_signal_kind::ramp, sample_format::sc8));
        const uint64_t first = 0x3412FFFEull; // crosses an 8-bit and the 16-bit boundary
        int8_t iq[4 * 2];
        s.generate(first, 4, reinterpret_cast<uint8_t*>(iq));
        CPPUNIT_ASSERT_EQUAL(int8_t(-2), iq[0]); // 0xFE as int8
        CPPUNIT_ASSERT_EQUAL(int8_t(-1), iq[1]); // 0xFF: bits 15..8 of 0x...FFFE
        CPPUNIT_ASSERT_EQUAL(int8_t(-1), iq[2]);
        CPPUNIT_ASSERT_EQUAL(int8_t(-1), iq[3]);
        CPPUNIT_ASSERT_EQUAL(int8_t(0), iq[4]); // k = 0x34130000: wrapped
        CPPUNIT_ASSERT_EQUAL(int8_t(0), iq[5]);
        CPPUNIT_ASSERT_EQUAL(int8_t(1), iq[6]);
        CPPUNIT_ASSERT_EQUAL(int8_t(0), iq[7]);
        for (int n = 0; n < 4; n++) {
            uint16_t word;
            std::memcpy(&word, &iq[2 * n], 2);
            CPPUNIT_ASSERT_EQUAL(static_cast<uint16_t>((first + n) & 0xFFFF), word);
        }
    }

    void test_sc8_saturates_like_twos_complement()
    {
        // The 8-bit converter: scale 128, +1.0 saturates at +127, -1.0 is -128.
        test_signal_config c = config(test_signal_kind::tone, sample_format::sc8);
        c.amplitude = 1.0f;
        c.freq_hz = c.sample_rate / 2;
        int8_t iq[4];
        test_signal(c).generate(0, 2, reinterpret_cast<uint8_t*>(iq));
        CPPUNIT_ASSERT_EQUAL(int8_t(127), iq[0]);
        CPPUNIT_ASSERT_EQUAL(int8_t(-128), iq[2]);
        c.amplitude = 0.5f; // half scale is 64: the scale is 128, not 127
        test_signal(c).generate(0, 1, reinterpret_cast<uint8_t*>(iq));
        CPPUNIT_ASSERT_EQUAL(int8_t(64), iq[0]);
    }

    void test_sc8_extremes_are_the_8_bit_corners()
    {
        const test_signal s(config(test_signal_kind::extremes, sample_format::sc8));
        int8_t iq[16];
        s.generate(64, 8, reinterpret_cast<uint8_t*>(iq)); // the cycle's start
        const int8_t expect[16] = { -128, -128, 127, 127, -128, 127, 127,  -128,
                                    0,    0,    -1,  -1,  1,    -1,  -128, 0 };
        for (int n = 0; n < 16; n++)
            CPPUNIT_ASSERT_EQUAL(expect[n], iq[n]);
    }

    void test_ramp_fill_is_ramp_item_across_wraps()
    {
        // Runs that cross where each format's ramp wraps (2^32 items of sc16, 2^24 of
        // fc32's I), of lengths around the vector widths, at every start alignment.
        const std::pair<sample_format, uint64_t> cases[] = {
            { sample_format::sc16, (1ull << 32) - 37 },
            { sample_format::sc16, (5ull << 32) - 1 },
            { sample_format::fc32, (1ull << 24) - 37 },
            { sample_format::fc32, (7ull << 24) - 1 },
            { sample_format::sc8, (1ull << 16) - 37 },
            { sample_format::sc8, (9ull << 16) - 1 },
        };
        for (const auto& [format, wrap] : cases) {
            const size_t size = item_size(format);
            for (uint64_t first = wrap - 3; first <= wrap + 3; first++) {
                for (size_t count : { size_t(1), size_t(7), size_t(64), size_t(101) }) {
                    std::vector<uint8_t> fast(count * size, 0xAA), slow(count * size);
                    ramp_fill(format, first, count, fast.data());
                    for (size_t n = 0; n < count; n++)
                        ramp_item(format, first + n, slow.data() + n * size);
                    CPPUNIT_ASSERT_MESSAGE(std::to_string(first) + "+" +
                                               std::to_string(count),
                                           fast == slow);
                }
            }
        }
    }

    void test_tone_is_continuous_across_calls()
    {
        test_signal s(config(test_signal_kind::tone, sample_format::fc32));
        std::vector<std::complex<float>> whole(3000), parts(3000);
        s.generate(1000000000ull, 3000, reinterpret_cast<uint8_t*>(whole.data()));
        for (int p = 0; p < 3; p++)
            s.generate(1000000000ull + 1000 * p,
                       1000,
                       reinterpret_cast<uint8_t*>(&parts[1000 * p]));
        for (size_t n = 0; n < whole.size(); n++) {
            CPPUNIT_ASSERT(std::abs(whole[n] - parts[n]) < 1e-5f);
            CPPUNIT_ASSERT(std::fabs(std::abs(whole[n]) - 0.25f) < 1e-5f);
        }
        // Frequency: the phase advances by 2 pi f / rate per sample.
        const float step = std::arg(whole[1] * std::conj(whole[0]));
        CPPUNIT_ASSERT(std::fabs(step - 2 * M_PI * 12345.0 / 1e6) < 1e-5);
    }

    void test_noise_is_deterministic_with_right_power()
    {
        test_signal s(config(test_signal_kind::noise, sample_format::fc32));
        const size_t n = 200000;
        std::vector<std::complex<float>> a(n), b(n);
        s.generate(42, n, reinterpret_cast<uint8_t*>(a.data()));
        s.generate(42, n, reinterpret_cast<uint8_t*>(b.data()));
        CPPUNIT_ASSERT(a == b);
        double mean = 0, power = 0;
        for (const auto& x : a) {
            mean += x.real();
            power += std::norm(x);
        }
        mean /= n;
        const double rms_per_component = std::sqrt(power / (2.0 * n));
        CPPUNIT_ASSERT(std::fabs(mean) < 0.005);
        CPPUNIT_ASSERT(std::fabs(rms_per_component - 0.25) < 0.01);
        std::vector<std::complex<float>> other(n);
        test_signal_config c = config(test_signal_kind::noise, sample_format::fc32);
        c.seed = 8;
        test_signal(c).generate(42, n, reinterpret_cast<uint8_t*>(other.data()));
        CPPUNIT_ASSERT(other != a);
    }
    static std::vector<int16_t> sc16(const test_signal& s, uint64_t first, size_t n)
    {
        std::vector<int16_t> iq(2 * n);
        s.generate(first, n, reinterpret_cast<uint8_t*>(iq.data()));
        return iq;
    }

    void test_sc16_saturates_like_twos_complement()
    {
        // Full scale +1.0 saturates at +32767, -1.0 reaches -32768: a tone of
        // amplitude 1 at 0 Hz is +1.0 on I; at rate/2 its second sample is -1.0.
        test_signal_config c = config(test_signal_kind::tone, sample_format::sc16);
        c.amplitude = 1.0f;
        c.freq_hz = 0;
        CPPUNIT_ASSERT_EQUAL(int16_t(32767), sc16(test_signal(c), 0, 1)[0]);
        c.freq_hz = c.sample_rate / 2;
        const auto iq = sc16(test_signal(c), 0, 2);
        CPPUNIT_ASSERT_EQUAL(int16_t(32767), iq[0]);
        CPPUNIT_ASSERT_EQUAL(int16_t(-32768), iq[2]);
        // Half scale is 16384: the scale is 32768, not 32767.
        c.amplitude = 0.5f;
        CPPUNIT_ASSERT_EQUAL(int16_t(16384), sc16(test_signal(c), 0, 1)[0]);
    }

    void test_clipped_noise_saturates_i_and_q_independently()
    {
        const test_signal s(config(test_signal_kind::clipped_noise, sample_format::sc16));
        const size_t n = 100000;
        const auto iq = sc16(s, 0, n);
        size_t low = 0, high = 0, both_low = 0;
        for (size_t k = 0; k < n; k++) {
            low += iq[2 * k] == -32768;
            high += iq[2 * k] == 32767;
            both_low += iq[2 * k] == -32768 && iq[2 * k + 1] == -32768;
        }
        // sigma = 4 x full scale: |x| > 1 for 80 % of samples, half of them negative.
        CPPUNIT_ASSERT(low > n * 35 / 100 && high > n * 35 / 100);
        // Independent I and Q: both at -32768 about 0.4 * 0.4 of the time.
        CPPUNIT_ASSERT(both_low > n * 12 / 100 && both_low < n * 20 / 100);
        // fc32 clips to exactly +-1.0.
        const test_signal f(config(test_signal_kind::clipped_noise, sample_format::fc32));
        std::vector<float> x(2 * n);
        f.generate(0, n, reinterpret_cast<uint8_t*>(x.data()));
        size_t ones = 0;
        for (float v : x) {
            CPPUNIT_ASSERT(v >= -1.0f && v <= 1.0f);
            ones += v == 1.0f || v == -1.0f;
        }
        CPPUNIT_ASSERT(ones > x.size() * 7 / 10);
    }

    void test_clipped_tone_at_half_rate_alternates_full_scale()
    {
        test_signal_config c = config(test_signal_kind::clipped_tone, sample_format::sc16);
        c.freq_hz = c.sample_rate / 2;
        const auto iq = sc16(test_signal(c), 1000, 64);
        for (size_t k = 0; k < 64; k++) {
            const int16_t want = (1000 + k) % 2 ? -32768 : 32767;
            CPPUNIT_ASSERT_EQUAL(want, iq[2 * k]);
            CPPUNIT_ASSERT_EQUAL(want, iq[2 * k + 1]); // Q in phase with I
        }
    }

    void test_square_is_full_scale()
    {
        test_signal_config c = config(test_signal_kind::square, sample_format::sc16);
        c.freq_hz = c.sample_rate / 8; // half a period: 4 samples
        const auto iq = sc16(test_signal(c), 0, 16);
        for (size_t k = 0; k < 16; k++) {
            const int16_t want = (k / 4) % 2 ? -32768 : 32767;
            CPPUNIT_ASSERT_EQUAL(want, iq[2 * k]);
            CPPUNIT_ASSERT_EQUAL(want, iq[2 * k + 1]);
        }
    }

    void test_extremes_hold_the_old_marks_and_special_floats()
    {
        const test_signal s(config(test_signal_kind::extremes, sample_format::sc16));
        const auto iq = sc16(s, 64, 8); // a multiple of 8: the cycle's start
        uint32_t first, second;
        std::memcpy(&first, &iq[0], 4);
        std::memcpy(&second, &iq[2], 4);
        CPPUNIT_ASSERT_EQUAL(0x80008000u, first);  // the old sc16 marks, as data
        CPPUNIT_ASSERT_EQUAL(0x7FFF7FFFu, second);
        const test_signal f(config(test_signal_kind::extremes, sample_format::fc32));
        uint32_t bits[16];
        f.generate(64, 8, reinterpret_cast<uint8_t*>(bits));
        CPPUNIT_ASSERT_EQUAL(0x7FC0DEADu, bits[0]); // the old fc32 marks: NaNs
        CPPUNIT_ASSERT_EQUAL(0x7FC0DEADu, bits[1]);
        CPPUNIT_ASSERT_EQUAL(0x7FC0BEEFu, bits[2]);
        CPPUNIT_ASSERT_EQUAL(0x7FC0BEEFu, bits[3]);
        float v[16];
        std::memcpy(v, bits, sizeof(v));
        CPPUNIT_ASSERT_EQUAL(1.0f, v[4]);
        CPPUNIT_ASSERT_EQUAL(-1.0f, v[5]);
        CPPUNIT_ASSERT(std::isinf(v[8]) && v[8] > 0 && std::isinf(v[9]) && v[9] < 0);
        CPPUNIT_ASSERT(std::fpclassify(v[10]) == FP_SUBNORMAL);
    }

    void test_any_call_boundaries_give_the_same_samples()
    {
        // A checker recomputes what the emulator generated packet by packet: every
        // sample must be the same whatever call produced it, bit for bit.
        for (uint32_t k = 0; k < test_signal_kinds; k++) {
            if (static_cast<test_signal_kind>(k) == test_signal_kind::scene)
                continue; // the emulator's, tested with rf_scene (qa_rf_scene.cc)
            for (sample_format format : { sample_format::sc16, sample_format::fc32 }) {
                test_signal_config c = config(static_cast<test_signal_kind>(k), format);
                c.freq_hz = 1234567.0;
                c.sample_rate = 20e6;
                const test_signal s(c);
                const size_t size = item_size(format), n = 1000;
                const uint64_t first = 123456789012ull;
                std::vector<uint8_t> whole(n * size), parts(n * size);
                s.generate(first, n, whole.data());
                for (size_t at = 0, len = 1; at < n; at += len, len = len * 3 % 97 + 1) {
                    len = std::min(len, n - at);
                    s.generate(first + at, len, parts.data() + at * size);
                }
                CPPUNIT_ASSERT_MESSAGE(to_string(c.kind), whole == parts);
            }
        }
    }

    void test_names_round_trip()
    {
        for (uint32_t k = 0; k < test_signal_kinds; k++) {
            const auto kind = static_cast<test_signal_kind>(k);
            CPPUNIT_ASSERT(parse_test_signal_kind(to_string(kind)) == kind);
        }
        CPPUNIT_ASSERT_THROW(parse_test_signal_kind("sine"), std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_test_signal);
