/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The metadata monitor's clock refiner on synthetic bounds: how each bound narrows
// the device's offset, drift and implausible claims, and a total correction that
// forged timestamps cannot push beyond what a clock can drift.

#include "../stream/metadata_monitor.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdint>

using namespace gr::rdma;

class qa_metadata_clock : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_clock);
    CPPUNIT_TEST(test_refiner_bounds);
    CPPUNIT_TEST(test_refiner_drift_and_implausible);
    CPPUNIT_TEST(test_refiner_total_correction_is_bounded);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_refiner_bounds()
    {
        clock_refiner c;
        c.reset({ 1000, 500 }, 0); // offset in [500, 1500]
        clock_estimate e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), e.offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), e.error_ns);
        // A bound below the interval tells nothing new.
        CPPUNIT_ASSERT(c.add(10000, 10000 - 200)); // offset >= 200
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), c.estimate().offset_ns);
        // One inside raises the lower end: [1100, 1500] -> 1300 +- 200.
        CPPUNIT_ASSERT(c.add(20000, 20000 - 1100));
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1300), e.offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), e.error_ns);
        // Odd widths round the error up: [1101, 1500].
        CPPUNIT_ASSERT(c.add(30000, 30000 - 1101));
        e = c.estimate();
        CPPUNIT_ASSERT(e.offset_ns - int64_t(e.error_ns) <= 1101);
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) >= 1500);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), e.error_ns);
        // The best bound ages out of the window, but the start interval stays.
        for (size_t i = 0; i < clock_refiner::window; i++)
            CPPUNIT_ASSERT(c.add(40000 + i, 40000 + i - 800));
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1150), e.offset_ns); // [800, 1500]
        CPPUNIT_ASSERT_EQUAL(uint64_t(350), e.error_ns);
        for (size_t i = 0; i < clock_refiner::window; i++)
            c.add(50000 + i, 50000 + i);
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), c.estimate().offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), c.estimate().error_ns);
    }

    void test_refiner_drift_and_implausible()
    {
        clock_refiner c;
        c.reset({ 0, 1000 }, 0); // [-1000, 1000] at host time 0
        // 10 s later a clock may have drifted 1 ms (100 ppm). The device proves itself
        // 300 ns past the upper end: the interval moves up.
        const int64_t later = 10000000000;
        CPPUNIT_ASSERT_EQUAL(int64_t(1000000), c.drift_allowance(later));
        CPPUNIT_ASSERT(c.add(later + 1300, later));
        clock_estimate e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1300), e.offset_ns); // [1300, 1300]
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), e.error_ns);
        CPPUNIT_ASSERT_EQUAL(int64_t(300), c.shift_ns());
        // Once the bound ages out, the (moved) start interval is what is known.
        for (size_t i = 0; i < clock_refiner::window; i++)
            c.add(later + 9000, later + 9000 + 5000);
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(300), e.offset_ns); // [-700, 1300]
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), e.error_ns);
        // More than the drift allowance in all, since start: rejected, nothing changes.
        CPPUNIT_ASSERT(!c.add(later + 1000 + 1000001, later));
        CPPUNIT_ASSERT_EQUAL(int64_t(300), c.estimate().offset_ns);
        CPPUNIT_ASSERT(c.add(later + 1000 + 1000000, later));
        CPPUNIT_ASSERT_EQUAL(int64_t(1000000), c.shift_ns());
    }

    void test_refiner_total_correction_is_bounded()
    {
        // Forged timestamps, each 0.9 ms ahead of the last, 300 of them in 0.3 s: the
        // total correction stays within what a clock can drift in that time (30 us),
        // not 300 x 0.9 ms. Each claim beyond is rejected.
        clock_refiner c;
        c.reset({ 0, 50000 }, 0); // AXIoE: within 50 us
        unsigned rejected = 0;
        for (int i = 1; i <= 300; i++) {
            const int64_t arrival = i * 1000000;
            rejected += c.add(arrival + 50000 + i * 900000, arrival) ? 0 : 1;
        }
        CPPUNIT_ASSERT_EQUAL(300u, rejected);
        CPPUNIT_ASSERT(c.shift_ns() <= c.drift_allowance(300000000));
        CPPUNIT_ASSERT_EQUAL(int64_t(30000), c.drift_allowance(300000000));
        const clock_estimate e = c.estimate();
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) <= 50000 + 30000);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_clock);
