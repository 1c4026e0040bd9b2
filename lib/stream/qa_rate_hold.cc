/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// When a stream counts as held below its rate by the device's controller (rate_hold):
// two readings in a row below what its samples need, a dip of one reading is none,
// CTRL_RATE 0 is no limit, and each hold is told once, with its end.

#include "rate_hold.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
using change = rate_hold::change;

class qa_rate_hold : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rate_hold);
    CPPUNIT_TEST(test_two_held_readings_in_a_row_are_a_hold);
    CPPUNIT_TEST(test_a_dip_of_one_reading_is_none);
    CPPUNIT_TEST(test_no_limit_and_enough_are_not_held);
    CPPUNIT_TEST_SUITE_END();

    static constexpr uint64_t need = 16000000; // 4 MS/s of sc16

public:
    void test_two_held_readings_in_a_row_are_a_hold()
    {
        rate_hold h(need);
        CPPUNIT_ASSERT(h.feed(1) == change::none); // 1 KiB/s: the least CTRL_RATE shows
        CPPUNIT_ASSERT(!h.held());
        CPPUNIT_ASSERT(h.feed(1) == change::began);
        CPPUNIT_ASSERT(h.held());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), h.held_bytes_per_s());
        // Told once: further held readings change nothing but the rate.
        CPPUNIT_ASSERT(h.feed(1875) == change::none);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1875 * 1024), h.held_bytes_per_s());
        CPPUNIT_ASSERT(h.feed(0) == change::ended); // no limit any more
        CPPUNIT_ASSERT(!h.held());
        CPPUNIT_ASSERT(h.feed(100) == change::none);
        CPPUNIT_ASSERT(h.feed(100) == change::began); // a second hold, told again
    }

    void test_a_dip_of_one_reading_is_none()
    {
        // A NAK backoff halves the rate and regains it within a few controller runs:
        // seen at one heartbeat, it is no hold.
        rate_hold h(need);
        const uint32_t half = need / 2 / 1024;
        CPPUNIT_ASSERT(h.feed(half) == change::none);
        CPPUNIT_ASSERT(h.feed(need / 1024 + 1) == change::none);
        CPPUNIT_ASSERT(h.feed(half) == change::none);
        CPPUNIT_ASSERT(h.feed(0) == change::none);
        CPPUNIT_ASSERT(!h.held());
    }

    void test_no_limit_and_enough_are_not_held()
    {
        rate_hold h(need);
        // CTRL_RATE rounds up: a rate of exactly the need reads as at least it.
        const uint32_t enough = (need + 1023) / 1024;
        for (int i = 0; i < 5; i++) {
            CPPUNIT_ASSERT(h.feed(0) == change::none);
            CPPUNIT_ASSERT(h.feed(enough) == change::none);
        }
        CPPUNIT_ASSERT(!h.held());
        // Needing nothing (the watch reads no CTRL_RATE then), nothing is a hold.
        rate_hold none;
        CPPUNIT_ASSERT(none.feed(1) == change::none);
        CPPUNIT_ASSERT(none.feed(1) == change::none);
        CPPUNIT_ASSERT(!none.held());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rate_hold);
