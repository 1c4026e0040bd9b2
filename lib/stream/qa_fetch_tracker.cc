/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The TX host's bookkeeping without a device: fetch notifications (fetch_tracker) and
// the control page the device reads (tx_control_page).

#include "fetch_tracker.h"
#include "tx_control_page.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/mman.h>
#include <cstring>

using namespace gr::rdma;
using verdict = fetch_tracker::verdict;

class qa_fetch_tracker : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_fetch_tracker);
    CPPUNIT_TEST(test_counts_items_of_fetched_messages);
    CPPUNIT_TEST(test_unwraps_32_bit_counts);
    CPPUNIT_TEST(test_ignores_repeats_and_reorders);
    CPPUNIT_TEST(test_ignores_more_than_committed);
    CPPUNIT_TEST(test_ignores_more_than_the_clock_allows);
    CPPUNIT_TEST(test_short_last_message_of_a_burst);
    CPPUNIT_TEST(test_control_page_layout);
    CPPUNIT_TEST(test_control_page_new_run);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_counts_items_of_fetched_messages()
    {
        fetch_tracker t;
        t.reset(256);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.fetched());
        CPPUNIT_ASSERT(t.on_immediate(16, 100000, UINT64_MAX) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 * 256), t.fetched());
        CPPUNIT_ASSERT(t.on_immediate(32, 100000, UINT64_MAX) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32 * 256), t.fetched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(32), t.messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.stale() + t.implausible());
    }

    void test_unwraps_32_bit_counts()
    {
        fetch_tracker t;
        t.reset(1);
        const uint64_t lots = UINT64_MAX / 2;
        uint64_t m = 0;
        // Walk past 2^32 messages in steps below 2^31.
        for (int i = 0; i < 5; i++) {
            m += (1u << 30) + 7;
            CPPUNIT_ASSERT(t.on_immediate(static_cast<uint32_t>(m), lots, UINT64_MAX) ==
                           verdict::accepted);
            CPPUNIT_ASSERT_EQUAL(m, t.fetched());
        }
        CPPUNIT_ASSERT(m > (uint64_t(1) << 32));
    }

    void test_ignores_repeats_and_reorders()
    {
        fetch_tracker t;
        t.reset(4);
        CPPUNIT_ASSERT(t.on_immediate(10, 1000, UINT64_MAX) == verdict::accepted);
        CPPUNIT_ASSERT(t.on_immediate(10, 1000, UINT64_MAX) == verdict::stale);
        CPPUNIT_ASSERT(t.on_immediate(9, 1000, UINT64_MAX) == verdict::stale);
        CPPUNIT_ASSERT(t.on_immediate(0, 1000, UINT64_MAX) == verdict::stale);
        CPPUNIT_ASSERT_EQUAL(uint64_t(40), t.fetched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), t.stale());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.implausible());
    }

    void test_ignores_more_than_committed()
    {
        fetch_tracker t;
        t.reset(100);
        // 1000 committed: 10 messages; an 11th cannot have been fetched.
        CPPUNIT_ASSERT(t.on_immediate(11, 1000, UINT64_MAX) == verdict::implausible);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.fetched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), t.implausible());
        // A forged jump far ahead (as a wrapped count would look) is not believed.
        CPPUNIT_ASSERT(t.on_immediate(0x7FFFFFFF, 1000, UINT64_MAX) ==
                       verdict::implausible);
        CPPUNIT_ASSERT(t.on_immediate(10, 1000, UINT64_MAX) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), t.fetched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.implausible());
    }

    void test_ignores_more_than_the_clock_allows()
    {
        fetch_tracker t;
        t.reset(100);
        CPPUNIT_ASSERT(t.on_immediate(5, 100000, 499) == verdict::implausible);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.fetched());
        CPPUNIT_ASSERT(t.on_immediate(5, 100000, 500) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), t.fetched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), t.implausible());
    }

    void test_short_last_message_of_a_burst()
    {
        fetch_tracker t;
        t.reset(100);
        // A burst of 250 items: its third message holds 50; fetched stops at 250.
        CPPUNIT_ASSERT(t.on_immediate(3, 250, UINT64_MAX) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(250), t.fetched());
        CPPUNIT_ASSERT(t.on_immediate(4, 250, UINT64_MAX) == verdict::implausible);
    }

    void test_control_page_layout()
    {
        tx_control_page page;
        const auto base = reinterpret_cast<uintptr_t>(page.base());
        CPPUNIT_ASSERT_EQUAL(uintptr_t(0), base % 4096);
        uint64_t words[tx_control_page::bytes / 8];
        std::memcpy(words, page.base(), sizeof(words));
        for (uint64_t w : words)
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), w);
        page.begin_run(7);
        page.publish(0x0102030405060708ull);
        // What the device reads: 16 bytes, committed then run, little-endian.
        const uint8_t expect[16] = { 8, 7, 6, 5, 4, 3, 2, 1, 7, 0, 0, 0, 0, 0, 0, 0 };
        CPPUNIT_ASSERT_EQUAL(0, std::memcmp(expect, page.base(), 16));
        std::memcpy(words, page.base(), sizeof(words));
        for (size_t i = 2; i < tx_control_page::bytes / 8; i++)
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), words[i]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x0102030405060708ull), page.committed());
    }

    void test_control_page_new_run()
    {
        tx_control_page page;
        page.begin_run(1);
        page.publish(5000);
        page.begin_run(2);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), page.committed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), page.run());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_fetch_tracker);
