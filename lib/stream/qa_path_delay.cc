/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's measure of each destination's path and when it tells the device
// (DST_PATH_NS, docs/links.md "Host feedback"): smoothed by 1/8, told at most every
// 100 ms and only when it moved by more than 1/8.

#include "path_delay.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

namespace {
constexpr int64_t ms = 1000000;
}

class qa_path_delay : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_path_delay);
    CPPUNIT_TEST(test_first_sample_then_smoothed);
    CPPUNIT_TEST(test_nothing_measured_nothing_told);
    CPPUNIT_TEST(test_told_at_most_every_period_and_on_a_change);
    CPPUNIT_TEST(test_bad_input_is_bounded);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_first_sample_then_smoothed()
    {
        path_delay p;
        p.on_notification(1, 8000);
        CPPUNIT_ASSERT_EQUAL(8000u, p.measured(1));
        p.on_notification(1, 16000); // 8000 + 8000 / 8
        CPPUNIT_ASSERT_EQUAL(9000u, p.measured(1));
        for (int i = 0; i < 200; i++)
            p.on_notification(1, 16000);
        CPPUNIT_ASSERT(p.measured(1) > 15900 && p.measured(1) <= 16000);
        CPPUNIT_ASSERT_EQUAL(0u, p.measured(0)); // destinations apart
        p.reset();
        CPPUNIT_ASSERT_EQUAL(0u, p.measured(1));
    }

    void test_nothing_measured_nothing_told()
    {
        path_delay p;
        uint32_t ns = 0;
        CPPUNIT_ASSERT(!p.due(0, 0, ns));
        CPPUNIT_ASSERT(!p.due(0, 10000 * ms, ns));
    }

    void test_told_at_most_every_period_and_on_a_change()
    {
        path_delay p;
        uint32_t ns = 0;
        p.on_notification(0, 100000);
        CPPUNIT_ASSERT(p.due(0, 5 * ms, ns)); // the first measure: at once
        CPPUNIT_ASSERT_EQUAL(100000u, ns);
        // Moved by more than 1/8, but within the period: not yet.
        for (int i = 0; i < 40; i++)
            p.on_notification(0, 200000);
        CPPUNIT_ASSERT(!p.due(0, 50 * ms, ns));
        CPPUNIT_ASSERT(p.due(0, 105 * ms, ns));
        CPPUNIT_ASSERT(ns > 190000);
        const uint32_t told = ns;
        // A period later, moved by less than 1/8: not told.
        p.on_notification(0, int64_t(told) + int64_t(told) / 16 * 8);
        CPPUNIT_ASSERT(p.measured(0) != told);
        CPPUNIT_ASSERT(!p.due(0, 300 * ms, ns));
        // Each destination keeps its own period.
        p.on_notification(3, 5000);
        CPPUNIT_ASSERT(p.due(3, 300 * ms, ns));
        CPPUNIT_ASSERT_EQUAL(5000u, ns);
    }

    void test_bad_input_is_bounded()
    {
        path_delay p;
        p.on_notification(2, -50000); // the clock estimate is off: still a measure
        CPPUNIT_ASSERT_EQUAL(1u, p.measured(2));
        p.on_notification(9, 1000); // no such destination: ignored
        CPPUNIT_ASSERT_EQUAL(0u, p.measured(9));
        uint32_t ns = 0;
        CPPUNIT_ASSERT(!p.due(9, 0, ns));
        p.on_notification(4, INT64_MAX);
        CPPUNIT_ASSERT_EQUAL(UINT32_MAX, p.measured(4));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_path_delay);
