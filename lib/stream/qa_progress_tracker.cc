/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "progress_tracker.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

class qa_progress_tracker : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_progress_tracker);
    CPPUNIT_TEST(test_counts_items_of_landed_messages);
    CPPUNIT_TEST(test_unwraps_32_bit_sequence);
    CPPUNIT_TEST(test_ignores_stale_immediates);
    CPPUNIT_TEST(test_finite_burst_completes_exactly);
    CPPUNIT_TEST(test_counts_immediates_out_of_sequence);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_counts_items_of_landed_messages()
    {
        progress_tracker t;
        t.reset(1024, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
        t.on_immediate(15); // messages 0..15 landed
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 * 1024), t.landed());
        t.on_immediate(31);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32 * 1024), t.landed());
        CPPUNIT_ASSERT(!t.complete());
    }

    void test_unwraps_32_bit_sequence()
    {
        progress_tracker t;
        t.reset(1, 0);
        for (uint64_t m = 0; m < (1ull << 32) + 100; m += (1u << 28))
            t.on_immediate(static_cast<uint32_t>(m));
        t.on_immediate(static_cast<uint32_t>((1ull << 32) + 99));
        CPPUNIT_ASSERT_EQUAL(uint64_t((1ull << 32) + 100), t.landed());
    }

    void test_ignores_stale_immediates()
    {
        progress_tracker t;
        t.reset(10, 0);
        t.on_immediate(100);
        t.on_immediate(50); // an old completion must not move progress backwards
        t.on_immediate(100);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1010), t.landed());
    }

    void test_finite_burst_completes_exactly()
    {
        progress_tracker t;
        t.reset(256, 1000); // messages of 256, 256, 256, 232
        t.on_immediate(1);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), t.landed());
        CPPUNIT_ASSERT(!t.complete());
        t.on_immediate(3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), t.landed());
        CPPUNIT_ASSERT(t.complete());
        t.reset(256, 1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
    }

    void test_counts_immediates_out_of_sequence()
    {
        progress_tracker t;
        t.reset(100, 1050, 4); // notifications after messages 3, 7 and the last, 10
        t.on_immediate(3);
        t.on_immediate(7);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.out_of_sequence());
        t.on_immediate(7); // a repeat
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), t.out_of_sequence());
        t.on_immediate(8); // message 8 carries no immediate
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.out_of_sequence());
        t.on_immediate(10); // the last message of the burst
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.out_of_sequence());
        CPPUNIT_ASSERT(t.complete());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_progress_tracker);
