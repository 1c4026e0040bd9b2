/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The dequeue rate's rule (docs/register-map.md, "Controller", "The dequeue"): over
// any interval T at most rate x (T + 1 ms) bytes plus one message leave, a stream that
// waited catches up by 1 ms at most, a new rate owes nothing to the old one, and 0 is
// no limit. Time is the test's own numbers, not a clock.

#include "dequeue_limiter.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstdint>

using namespace gr::rdma::emu;

namespace {
constexpr int64_t ms = 1000000;
constexpr uint64_t message = 1000; // bytes
} // namespace

class qa_dequeue_limiter : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_dequeue_limiter);
    CPPUNIT_TEST(test_no_rate_is_no_limit);
    CPPUNIT_TEST(test_steady_rate);
    CPPUNIT_TEST(test_catch_up_is_bounded);
    CPPUNIT_TEST(test_any_interval_within_the_bound);
    CPPUNIT_TEST(test_a_new_rate_starts_now);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_no_rate_is_no_limit()
    {
        dequeue_limiter l;
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), l.allowed(0, message, 500));
        l.take(0, message, 500);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), l.allowed(0, message, 500));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), l.allowed(0, message, 0));
    }

    void test_steady_rate()
    {
        // 1 MB/s, 1000-byte messages: one per ms once the catch-up is spent.
        dequeue_limiter l;
        const int64_t t0 = 100 * ms;
        l.set_rate(1000000, t0);
        uint64_t sent = 0;
        for (int64_t t = t0; t <= t0 + 1000 * ms; t += ms / 10) {
            const uint64_t n = l.allowed(t, message, 1000);
            l.take(t, message, n);
            sent += n;
        }
        // 1000 ms at the rate, the 1 ms of catch-up at the start, and the one at t0.
        CPPUNIT_ASSERT(sent >= 1000 && sent <= 1002);
    }

    void test_catch_up_is_bounded()
    {
        // After a long wait only 1 ms of the rate (plus the message due now) leaves.
        dequeue_limiter l;
        l.set_rate(1000000, 0);
        l.take(0, message, 1);
        const uint64_t n = l.allowed(10000 * ms, message, 1000000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), n);
        l.take(10000 * ms, message, n);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), l.allowed(10000 * ms, message, 10));
        CPPUNIT_ASSERT_EQUAL(10000 * ms + ms, l.next_ns());
    }

    void test_any_interval_within_the_bound()
    {
        // Irregular wake-ups: every window of T holds at most rate (T + 1 ms) + 1.
        dequeue_limiter l;
        constexpr uint64_t rate = 3000000; // 3 messages per ms
        l.set_rate(rate, 0);
        int64_t at[4000];
        size_t count = 0;
        int64_t t = 0;
        for (int i = 0; count < 3500 && i < 100000; i++) {
            t += (i * 7919 % 13 + 1) * ms / 20; // 50 us .. 650 us
            const uint64_t n = l.allowed(t, message, 1000);
            l.take(t, message, n);
            for (uint64_t k = 0; k < n && count < 3500; k++)
                at[count++] = t;
        }
        CPPUNIT_ASSERT(count == 3500);
        for (size_t i = 0; i < count; i++) {
            for (int64_t window : { ms / 2, 5 * ms, 50 * ms }) {
                const int64_t* end = std::upper_bound(at + i, at + count, at[i] + window);
                const double bound = double(rate) * (window + ms) / 1e9 / message + 1;
                CPPUNIT_ASSERT(double(end - (at + i)) <= bound);
            }
        }
    }

    void test_a_new_rate_starts_now()
    {
        // A debt taken at a low rate is owed at the new one, not at the old price.
        dequeue_limiter l;
        l.set_rate(1000, 0);   // one message per second
        l.take(0, message, 5); // 5 s ahead (the first one was due at 0)
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), l.allowed(ms, message, 10));
        l.set_rate(1000000, ms); // 4999 bytes still owed: 4.999 ms at 1 MB/s
        CPPUNIT_ASSERT_EQUAL(ms + 4999000, l.next_ns());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), l.allowed(ms + 4998000, message, 10));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), l.allowed(ms + 4999000, message, 10));
        // No limit: everything due leaves; a limit again starts with no debt.
        l.set_rate(0, 2 * ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), l.allowed(2 * ms, message, 10));
        l.take(2 * ms, message, 10);
        l.set_rate(1000000, 3 * ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), l.allowed(3 * ms, message, 10));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_dequeue_limiter);
