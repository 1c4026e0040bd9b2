/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "handout_pacing.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

class qa_handout_pacing : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_handout_pacing);
    CPPUNIT_TEST(test_one_gigabyte_a_second);
    CPPUNIT_TEST(test_low_rates_keep_the_mtu_and_notify_every_message);
    CPPUNIT_TEST(test_notifications_stay_about_a_millisecond_apart_at_every_rate);
    CPPUNIT_TEST(test_a_short_latency_budget_shortens_the_period);
    CPPUNIT_TEST(test_an_explicit_payload_sets_the_notify_for_it);
    CPPUNIT_TEST_SUITE_END();

    void test_one_gigabyte_a_second()
    {
        const handout_pacing p(1e9, 0.1);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1e-3, p.period_s(), 1e-12);
        // 62 500 bytes a sixteenth of a period: the next power of two is the largest.
        CPPUNIT_ASSERT_EQUAL(uint32_t(65536), p.payload_bytes(4096, 4));
        CPPUNIT_ASSERT_EQUAL(uint32_t(15), p.notify_interval(65536)); // 0.98 ms apart
        // 10 GB/s: the messages stay 64 KiB, a notification spans more of them.
        CPPUNIT_ASSERT_EQUAL(uint32_t(152),
                             handout_pacing(1e10, 0.1).notify_interval(65536));
        // 100 MB/s: 6 250 bytes a sixteenth: 8 KiB.
        CPPUNIT_ASSERT_EQUAL(uint32_t(8192),
                             handout_pacing(1e8, 0.1).payload_bytes(4096, 4));
    }

    void test_low_rates_keep_the_mtu_and_notify_every_message()
    {
        // 1 MS/s sc16: a 4 KiB message lasts 1.02 ms, longer than the period.
        const handout_pacing p(4e6, 0.1);
        CPPUNIT_ASSERT_EQUAL(uint32_t(4096), p.payload_bytes(4096, 4));
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), p.notify_interval(4096));
        // A small path MTU is the floor, and so is an item larger than it could be.
        CPPUNIT_ASSERT_EQUAL(uint32_t(1024),
                             handout_pacing(1e5, 0.1).payload_bytes(1024, 8));
        // At high rates, a message is at most 16 packets.
        CPPUNIT_ASSERT_EQUAL(uint32_t(16384),
                             handout_pacing(1e9, 0.1).payload_bytes(1024, 4));
        CPPUNIT_ASSERT_EQUAL(uint32_t(4096),
                             handout_pacing(1e9, 0.1).payload_bytes(256, 4));
        // 10 MB/s: two messages per millisecond.
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), handout_pacing(1e7, 0.1).notify_interval(4096));
    }

    void test_notifications_stay_about_a_millisecond_apart_at_every_rate()
    {
        for (double rate = 1e5; rate <= 1.6e10; rate *= 1.37) {
            const handout_pacing p(rate, 0.1);
            const uint32_t payload = p.payload_bytes(4096, 4);
            CPPUNIT_ASSERT(payload >= 4096 && payload <= 65536);
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), payload & (payload - 1));
            const uint32_t notify = p.notify_interval(payload);
            const double message_s = payload / rate;
            const double spacing_s = notify * message_s;
            if (message_s >= p.period_s()) { // slower than the period: each message
                CPPUNIT_ASSERT_EQUAL(uint32_t(1), notify);
                CPPUNIT_ASSERT_EQUAL(uint32_t(4096), payload);
                continue;
            }
            // Never later than the period, never more than twice as often.
            CPPUNIT_ASSERT(spacing_s <= p.period_s() * (1 + 1e-9));
            CPPUNIT_ASSERT(spacing_s > p.period_s() / 2);
            // A notification spans 16 messages unless they are already 64 KiB.
            CPPUNIT_ASSERT(notify >= 8 || payload == 65536 ||
                           payload == 4096); // (the MTU floor: fewer, longer messages)
        }
    }

    void test_a_short_latency_budget_shortens_the_period()
    {
        const handout_pacing p(1e9, 0.01); // a twentieth: 0.5 ms
        CPPUNIT_ASSERT_DOUBLES_EQUAL(5e-4, p.period_s(), 1e-12);
        CPPUNIT_ASSERT_EQUAL(uint32_t(32768), p.payload_bytes(4096, 4));
        CPPUNIT_ASSERT_EQUAL(uint32_t(15), p.notify_interval(32768));
        // A long budget does not lengthen it: a millisecond at most.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1e-3, handout_pacing(1e9, 60).period_s(), 1e-12);
    }

    void test_an_explicit_payload_sets_the_notify_for_it()
    {
        const handout_pacing p(1e9, 0.1);
        CPPUNIT_ASSERT_EQUAL(uint32_t(122), p.notify_interval(8192));
        CPPUNIT_ASSERT_EQUAL(uint32_t(244), p.notify_interval(4096));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_handout_pacing);
