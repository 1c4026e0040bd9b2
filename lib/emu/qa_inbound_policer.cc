/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulated link's rate on what comes back (docs/register-map.md, "Emulated
// links"): at most rate x (T + queue) bytes pass in any interval T, what the rate can
// carry all passes, and 0 is no limit. Time is the test's own numbers, not a clock.

#include "inbound_policer.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdint>

using namespace gr::rdma::emu;

namespace {
constexpr int64_t us = 1000;
constexpr uint64_t frame = 1000;          // IPv4 bytes
constexpr uint64_t rate = 100000000;      // bytes/s: one frame per 10 us
constexpr int64_t frame_ns = 10 * us;
} // namespace

class qa_inbound_policer : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_inbound_policer);
    CPPUNIT_TEST(test_no_rate_passes_everything);
    CPPUNIT_TEST(test_what_the_rate_carries_passes);
    CPPUNIT_TEST(test_twice_the_rate_loses_half);
    CPPUNIT_TEST(test_burst_bounded_by_the_queue);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_no_rate_passes_everything()
    {
        inbound_policer p;
        for (int i = 0; i < 1000; i++)
            CPPUNIT_ASSERT(p.admit(0, frame));
    }

    void test_what_the_rate_carries_passes()
    {
        inbound_policer p;
        p.configure(rate, 0);
        for (int i = 0; i < 1000; i++)
            CPPUNIT_ASSERT(p.admit(i * frame_ns, frame));
    }

    void test_twice_the_rate_loses_half()
    {
        inbound_policer p;
        p.configure(rate, 100 * us);
        int passed = 0;
        const int n = 10000;
        for (int i = 0; i < n; i++)
            passed += p.admit(i * frame_ns / 2, frame);
        // rate x (T + queue): T = n x 5 us, queue 100 us: n/2 + 10 frames at most.
        CPPUNIT_ASSERT(passed <= n / 2 + 11);
        CPPUNIT_ASSERT(passed >= n / 2 - 1);
    }

    void test_burst_bounded_by_the_queue()
    {
        inbound_policer p;
        p.configure(rate, 50 * us);
        int passed = 0;
        for (int i = 0; i < 100; i++) // all at once
            passed += p.admit(0, frame);
        CPPUNIT_ASSERT_EQUAL(6, passed); // departures 0, 10, .. 50 us
        // Once the queue has drained, frames pass again.
        CPPUNIT_ASSERT(p.admit(60 * us, frame));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_inbound_policer);
