/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream's timeline: sample k at t0 + k / rate, exactly; the first sample a change
// at device time T reaches (docs/radio.md: how a retune shows in the samples).

#include "stream_clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

class qa_stream_clock : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_stream_clock);
    CPPUNIT_TEST(test_first_sample_from_is_exact);
    CPPUNIT_TEST(test_a_new_run_at_another_rate);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_first_sample_from_is_exact()
    {
        const uint64_t t0 = 1796000000000000000ull;
        // 3 S/s: sample 1 at t0 + 333333333.33 ns, sample 2 at t0 + 666666666.67 ns.
        const stream_clock c(rational_rate(3.0), t0, 0, 0, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.first_sample_from(t0 - 5));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.first_sample_from(t0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.first_sample_from(t0 + 1));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.first_sample_from(t0 + 333333333));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.first_sample_from(t0 + 333333334));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.first_sample_from(t0 + 1000000000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), c.first_sample_from(t0 + 1000000001));
        // On a whole ns the sample at exactly T is the first.
        const stream_clock m(rational_rate(1e6), t0, 0, 0, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), m.first_sample_from(t0 + 1000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), m.first_sample_from(t0 + 1001));
        CPPUNIT_ASSERT_EQUAL(uint64_t(123456), m.first_sample_from(m.time_of(123456)));
        // Consistent with time_of: the sample found is at or after T, its predecessor
        // before it.
        for (uint64_t t = t0; t < t0 + 5000; t += 7) {
            const uint64_t k = m.first_sample_from(t);
            CPPUNIT_ASSERT(m.time_of(k) >= t);
            CPPUNIT_ASSERT(k == 0 || m.time_of(k - 1) < t);
        }
    }

    void test_a_new_run_at_another_rate()
    {
        // 1 MS/s from t0 until sample 1000 (a timed STOP), then 2 MS/s from t1 = t0 + 5
        // ms: sample 1000 is the new run's sample 0 (docs/radio.md, RX_FIRST_MESSAGE).
        const uint64_t t0 = 1796000000000000000ull;
        const uint64_t t1 = t0 + 5000000;
        stream_clock c(rational_rate(1e6), t0, 0, 0, 0);
        c.continue_at(1000, t1, rational_rate(2e6));
        CPPUNIT_ASSERT_EQUAL(t0 + 999000, c.time_of(999));
        CPPUNIT_ASSERT_EQUAL(t1, c.time_of(1000));
        CPPUNIT_ASSERT_EQUAL(t1 + 500, c.time_of(1001));
        CPPUNIT_ASSERT_EQUAL(uint64_t(999), c.samples_at(int64_t(t0 + 999000)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_at(int64_t(t0 + 1000000)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_at(int64_t(t0 + 3000000))); // gap
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_at(int64_t(t1)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1001), c.samples_at(int64_t(t1 + 500)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(999), c.first_sample_from(t0 + 999000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.first_sample_from(t0 + 999001));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.first_sample_from(t1));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1001), c.first_sample_from(t1 + 1));
        CPPUNIT_ASSERT_EQUAL(int64_t(t0 + 1000000), c.host_time_final(1000));
        CPPUNIT_ASSERT_EQUAL(int64_t(t1 + 1000), c.host_time_final(1002));
        // The estimate moves, the timeline stays.
        const stream_clock e = c.with_estimate(-7, 3);
        CPPUNIT_ASSERT_EQUAL(t1 + 500, e.time_of(1001));
        CPPUNIT_ASSERT_EQUAL(int64_t(-7), e.offset_ns());
        // Only the last segments are kept; the newest is the rate in force.
        for (uint64_t i = 2; i < 20; i++)
            c.continue_at(1000 * i, t1 + i * 1000000, rational_rate(1e6 * double(i)));
        CPPUNIT_ASSERT_EQUAL(t1 + 19000000, c.time_of(19000));
        CPPUNIT_ASSERT_EQUAL(rational_rate(19e6).num, c.rate().num);
        CPPUNIT_ASSERT_EQUAL(rational_rate(19e6).den, c.rate().den);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_stream_clock);
