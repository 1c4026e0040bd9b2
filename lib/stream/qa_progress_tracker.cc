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

namespace {
// A genuine notification: its WRITE is the whole message, and no clock bound.
progress_tracker::verdict notify(progress_tracker& t, uint32_t imm)
{
    const uint64_t m = imm; // the tests stay below 2^32 messages but for the wrap test
    uint64_t items = t.items_in(m);
    return t.on_immediate(imm, static_cast<uint32_t>(items * 4), UINT64_MAX);
}
} // namespace

class qa_progress_tracker : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_progress_tracker);
    CPPUNIT_TEST(test_counts_items_of_landed_messages);
    CPPUNIT_TEST(test_unwraps_32_bit_sequence);
    CPPUNIT_TEST(test_ignores_stale_immediates);
    CPPUNIT_TEST(test_finite_burst_completes_exactly);
    CPPUNIT_TEST(test_counts_immediates_out_of_sequence);
    CPPUNIT_TEST(test_ignores_a_write_that_is_not_the_whole_message);
    CPPUNIT_TEST(test_ignores_what_the_device_cannot_have_produced);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_counts_items_of_landed_messages()
    {
        progress_tracker t;
        t.reset(1024, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
        notify(t, 15); // messages 0..15 landed
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 * 1024), t.landed());
        notify(t, 31);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32 * 1024), t.landed());
        CPPUNIT_ASSERT(!t.complete());
    }

    void test_unwraps_32_bit_sequence()
    {
        progress_tracker t;
        t.reset(1, 0);
        for (uint64_t m = 0; m < (1ull << 32) + 100; m += (1u << 28))
            notify(t, static_cast<uint32_t>(m));
        notify(t, static_cast<uint32_t>((1ull << 32) + 99));
        CPPUNIT_ASSERT_EQUAL(uint64_t((1ull << 32) + 100), t.landed());
    }

    void test_ignores_stale_immediates()
    {
        progress_tracker t;
        t.reset(10, 0);
        notify(t, 100);
        notify(t, 50); // an old completion must not move progress backwards
        notify(t, 100);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1010), t.landed());
    }

    void test_finite_burst_completes_exactly()
    {
        progress_tracker t;
        t.reset(256, 1000); // messages of 256, 256, 256, 232
        notify(t, 1);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), t.landed());
        CPPUNIT_ASSERT(!t.complete());
        notify(t, 3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), t.landed());
        CPPUNIT_ASSERT(t.complete());
        t.reset(256, 1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
    }

    void test_counts_immediates_out_of_sequence()
    {
        progress_tracker t;
        t.reset(100, 1050, 4); // notifications after messages 3, 7 and the last, 10
        notify(t, 3);
        notify(t, 7);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.out_of_sequence());
        notify(t, 7); // a repeat
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), t.out_of_sequence());
        notify(t, 8); // message 8 carries no immediate
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.out_of_sequence());
        notify(t, 10); // the last message of the burst
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.out_of_sequence());
        CPPUNIT_ASSERT(t.complete());
    }

    void test_ignores_a_write_that_is_not_the_whole_message()
    {
        // A zero-length WRITE WITH IMMEDIATE needs no rkey and no address: anyone who
        // knows the QPN can send one. The device's are always whole messages.
        progress_tracker t;
        t.reset(256, 1000, 1, 4); // messages of 256, 256, 256, 232 items
        using v = progress_tracker::verdict;
        CPPUNIT_ASSERT(t.on_immediate(1000000, 0, UINT64_MAX) == v::wrong_length);
        CPPUNIT_ASSERT(t.on_immediate(1, 1023, UINT64_MAX) == v::wrong_length);
        CPPUNIT_ASSERT(t.on_immediate(3, 1024, UINT64_MAX) == v::wrong_length); // short
        CPPUNIT_ASSERT(t.on_immediate(4, 1024, UINT64_MAX) == v::wrong_length); // past end
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), t.wrong_length());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
        CPPUNIT_ASSERT(t.on_immediate(1, 1024, UINT64_MAX) == v::accepted);
        CPPUNIT_ASSERT(t.on_immediate(3, 232 * 4, UINT64_MAX) == v::accepted);
        CPPUNIT_ASSERT(t.complete());
    }

    void test_ignores_what_the_device_cannot_have_produced()
    {
        progress_tracker t;
        t.reset(256, 0, 16, 4);
        using v = progress_tracker::verdict;
        // The clock says the device has produced at most 4096 samples: message 15 (its
        // last sample is 4095) may have landed, message 16 cannot have.
        CPPUNIT_ASSERT(t.on_immediate(31, 1024, 4096) == v::implausible);
        CPPUNIT_ASSERT(t.on_immediate(16, 1024, 4096) == v::implausible);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), t.implausible());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.landed());
        CPPUNIT_ASSERT(t.on_immediate(15, 1024, 4096) == v::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096), t.landed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), t.landed_messages());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_progress_tracker);
