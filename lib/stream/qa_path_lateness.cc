/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "path_lateness.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

class qa_path_lateness : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_path_lateness);
    CPPUNIT_TEST(test_late_notification_up_at_once_down_slowly);
    CPPUNIT_TEST(test_an_oversleep_holds_the_clock_back_as_long);
    CPPUNIT_TEST(test_bounded_and_reset);
    CPPUNIT_TEST_SUITE_END();

    void test_late_notification_up_at_once_down_slowly()
    {
        path_lateness p(1000000000);
        p.on_notification(-5000); // in time: nothing
        CPPUNIT_ASSERT_EQUAL(int64_t(0), p.late_ns());
        p.on_notification(3000000);
        CPPUNIT_ASSERT_EQUAL(int64_t(3000000), p.late_ns());
        p.on_notification(0); // down by 1 %
        CPPUNIT_ASSERT_EQUAL(int64_t(2970000), p.late_ns());
        for (int i = 0; i < 2000; i++)
            p.on_notification(0);
        CPPUNIT_ASSERT(p.late_ns() < 10000);
    }

    void test_an_oversleep_holds_the_clock_back_as_long()
    {
        // A VM that stalled 200 ms: the host's 1 ms wait ends 200 ms late. Frames that
        // waited in its queues as long are not lost yet.
        path_lateness p(1000000000);
        p.on_wake(1000000, 900000); // woken early (a completion): nothing
        CPPUNIT_ASSERT_EQUAL(int64_t(0), p.late_ns());
        p.on_wake(1000000, 201000000);
        CPPUNIT_ASSERT_EQUAL(int64_t(200000000), p.late_ns());
        p.on_wake(1000000, 1500000); // a smaller oversleep keeps the larger
        CPPUNIT_ASSERT_EQUAL(int64_t(200000000), p.late_ns());
        p.on_notification(0);
        CPPUNIT_ASSERT_EQUAL(int64_t(198000000), p.late_ns());
        p.on_wake(1000000, 1000000); // punctual: the stall is draining
        CPPUNIT_ASSERT_EQUAL(int64_t(196020000), p.late_ns());
        for (int i = 0; i < 2000; i++)
            p.on_wake(1000000, 999000);
        CPPUNIT_ASSERT(p.late_ns() < 1000000);
    }

    void test_bounded_and_reset()
    {
        path_lateness p(50000000);
        p.on_wake(0, 3000000000);
        CPPUNIT_ASSERT_EQUAL(int64_t(50000000), p.late_ns());
        p.on_notification(70000000);
        CPPUNIT_ASSERT_EQUAL(int64_t(50000000), p.late_ns());
        p.reset(10);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), p.late_ns());
        p.on_wake(0, 100);
        CPPUNIT_ASSERT_EQUAL(int64_t(10), p.late_ns());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_path_lateness);
