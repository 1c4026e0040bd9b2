/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "signal_source.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::emu;

class qa_signal_source : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_signal_source);
    CPPUNIT_TEST(test_ramp_sc16);
    CPPUNIT_TEST(test_ramp_fc32);
    CPPUNIT_TEST(test_ramp_fill_is_ramp_item_across_wraps);
    CPPUNIT_TEST(test_tone_is_continuous_across_calls);
    CPPUNIT_TEST(test_noise_is_deterministic_with_right_power);
    CPPUNIT_TEST_SUITE_END();

    static signal_config config(signal_kind kind, sample_format format)
    {
        signal_config c;
        c.kind = kind;
        c.format = format;
        c.sample_rate = 1e6;
        c.tone_freq_hz = 12345.0;
        c.amplitude = 0.25f;
        c.seed = 7;
        return c;
    }

public:
    void test_ramp_sc16()
    {
        signal_source s(config(signal_kind::ramp, sample_format::sc16));
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
        signal_source s(config(signal_kind::ramp, sample_format::fc32));
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

    void test_ramp_fill_is_ramp_item_across_wraps()
    {
        // Runs that cross where each format's ramp wraps (2^32 items of sc16, 2^24 of
        // fc32's I), of lengths around the vector widths, at every start alignment.
        const std::pair<sample_format, uint64_t> cases[] = {
            { sample_format::sc16, (1ull << 32) - 37 },
            { sample_format::sc16, (5ull << 32) - 1 },
            { sample_format::fc32, (1ull << 24) - 37 },
            { sample_format::fc32, (7ull << 24) - 1 },
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
        signal_source s(config(signal_kind::tone, sample_format::fc32));
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
        signal_source s(config(signal_kind::noise, sample_format::fc32));
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
        signal_config c = config(signal_kind::noise, sample_format::fc32);
        c.seed = 8;
        signal_source(c).generate(42, n, reinterpret_cast<uint8_t*>(other.data()));
        CPPUNIT_ASSERT(other != a);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_signal_source);
