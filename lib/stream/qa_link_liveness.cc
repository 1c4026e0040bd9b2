/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// When the host declares a link down (docs/links.md, "Failover"): silent while others
// progress, for the timeout and at least three of its notification intervals.

#include "link_liveness.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
using weights_t = std::array<uint16_t, link_liveness::max_destinations>;
using frontiers_t = std::array<uint64_t, link_liveness::max_destinations>;

namespace {
constexpr int64_t ms = 1000000;
constexpr int64_t message_ns = 256000; // 1024 samples at 4 MS/s
} // namespace

class qa_link_liveness : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_link_liveness);
    CPPUNIT_TEST(test_a_silent_destination_is_declared_once);
    CPPUNIT_TEST(test_a_stream_silent_everywhere_declares_nothing);
    CPPUNIT_TEST(test_the_timeout_covers_three_notification_intervals);
    CPPUNIT_TEST(test_an_epoch_that_reactivates_restarts_the_timeout);
    CPPUNIT_TEST(test_timeout_0_or_no_notifications_never_declare);
    CPPUNIT_TEST(test_silence_counts_from_a_later_run_start);
    CPPUNIT_TEST(test_quiet_while_others_move_whatever_the_timeout);
    CPPUNIT_TEST(test_a_shared_silence_blames_neither);
    CPPUNIT_TEST(test_a_rejoin_is_no_evidence_against_the_others);
    CPPUNIT_TEST_SUITE_END();

    static weights_t one_one()
    {
        weights_t w{};
        w[0] = w[1] = 1;
        return w;
    }

public:
    void test_a_silent_destination_is_declared_once()
    {
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 0);
        l.on_epoch(one_one(), 0);
        frontiers_t f{};
        for (int64_t t = ms; t <= 20 * ms; t += ms) {
            f[0] += 4;
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, t));
        }
        f[0] += 4;
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.check(f, 21 * ms));
        f[0] += 4;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 22 * ms)); // once
    }

    void test_a_shared_silence_blames_neither()
    {
        // Weights 3:1 (A A B A): destination 1 delivers last at 10 ms, destination 0 at
        // 11 ms, then nothing moves (the device paused, or forged packets on
        // destination 0's QP held the hand-out back). Destination 1's timer runs out
        // first; destination 0 did not progress during its silence: nobody is to
        // blame. Before, destination 1 was declared at 30.25 ms (issue 31: forged
        // packets on one link had the other declared down three times).
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 0);
        weights_t w{};
        w[0] = 3;
        w[1] = 1;
        l.on_epoch(w, 0);
        frontiers_t f{};
        f[1] = 40;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 10 * ms));
        f[0] = 44;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 11 * ms));
        for (int64_t t = 11 * ms; t <= 60 * ms; t += ms / 4)
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, t));
        // Destination 0 moves on and 1 stays silent: now it is 1's link.
        for (int64_t t = 61 * ms; t <= 90 * ms; t += 4 * ms) {
            f[0] += 12;
            const uint32_t declared = l.check(f, t);
            CPPUNIT_ASSERT(declared == 0 || declared == 2);
            if (declared) {
                CPPUNIT_ASSERT(l.declared(1));
                return;
            }
        }
        CPPUNIT_FAIL("destination 1 was never declared while 0 carried on");
    }

    void test_a_rejoin_is_no_evidence_against_the_others()
    {
        // Destination 1 last delivered at 100 ms; destination 0 rejoins at 105 ms and
        // delivers nothing: at 120.5 ms nobody progressed during 1's silence.
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 0);
        weights_t only1{};
        only1[1] = 1;
        l.on_epoch(only1, 0);
        frontiers_t f{};
        f[1] = 400;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 100 * ms));
        l.on_epoch(one_one(), 105 * ms);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 120 * ms + ms / 2));
        CPPUNIT_ASSERT(!l.declared(1));
    }

    void test_silence_counts_from_a_later_run_start()
    {
        // A re-armed run starts 100 ms after the reset: destination 0 notifies first
        // then, and destination 1 is not blamed for the 100 ms nobody sent anything.
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 100 * ms);
        l.on_epoch(one_one(), ms);
        frontiers_t f{};
        f[0] = f[1] = 3280;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 2 * ms));
        for (int64_t t = 101 * ms; t <= 120 * ms; t += ms) {
            f[0] += 4;
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, t));
        }
        // Still silent 20 ms after the run's start: now it is.
        f[0] += 4;
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.check(f, 121 * ms));
    }

    void test_a_stream_silent_everywhere_declares_nothing()
    {
        // A device that stalls, a reader that paused: no link is to blame.
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 0);
        l.on_epoch(one_one(), 0);
        const frontiers_t f{};
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 100 * ms));
    }

    void test_the_timeout_covers_three_notification_intervals()
    {
        // 1 MS/s: a window of 16 messages of 1024 samples is 16.4 ms; three of them
        // are 49 ms, above the 20 ms asked. A destination of weight 1 in 64 notifies
        // every 64 messages.
        link_liveness l;
        l.reset(20 * ms, 16, 1024000, 0);
        l.on_epoch(one_one(), 0);
        CPPUNIT_ASSERT_EQUAL(int64_t(3 * 16 * 1024000), l.timeout_ns(1));
        weights_t w{};
        w[0] = 63;
        w[1] = 1;
        l.on_epoch(w, 0);
        CPPUNIT_ASSERT_EQUAL(int64_t(3 * 64 * 1024000), l.timeout_ns(1));
        CPPUNIT_ASSERT_EQUAL(int64_t(3 * 16 * 1024000), l.timeout_ns(0));
        frontiers_t f{};
        f[0] = 1;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 150 * ms));
        f[0] = 2;
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.check(f, 197 * ms));
    }

    void test_an_epoch_that_reactivates_restarts_the_timeout()
    {
        link_liveness l;
        l.reset(20 * ms, 16, message_ns, 0);
        l.on_epoch(one_one(), 0);
        frontiers_t f{};
        f[0] = 10;
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.check(f, 21 * ms));
        weights_t out{};
        out[0] = 1;
        l.on_epoch(out, 22 * ms); // the device took it out
        f[0] = 20;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 100 * ms));
        l.on_epoch(one_one(), 1000 * ms); // rejoined
        f[0] = 30;
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 1015 * ms));
        f[0] = 40;
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.check(f, 1021 * ms)); // silent again
    }

    void test_timeout_0_or_no_notifications_never_declare()
    {
        for (int k = 0; k < 2; k++) {
            link_liveness l;
            l.reset(k ? 20 * ms : 0, k ? 0 : 16, message_ns, 0);
            l.on_epoch(one_one(), 0);
            frontiers_t f{};
            f[0] = 100;
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.check(f, 1000 * ms));
        }
    }

    void test_quiet_while_others_move_whatever_the_timeout()
    {
        // Destination 1 stops at 5 ms; destination 0 goes on. Quiet for more than 10 ms
        // while another moved: its packets are lost, not on their way (also with
        // link_timeout=0, which never declares).
        for (int64_t timeout : { int64_t(0), 20 * ms }) {
            link_liveness l;
            l.reset(timeout, 16, message_ns, 0);
            l.on_epoch(one_one(), 0);
            frontiers_t f{};
            for (int64_t t = ms; t <= 15 * ms; t += ms) {
                f[0] += 4;
                if (t <= 5 * ms)
                    f[1] += 4;
                l.check(f, t);
                CPPUNIT_ASSERT_EQUAL(uint32_t(t - 5 * ms > 10 * ms ? 2 : 0),
                                     l.quiet(t, 10 * ms));
            }
            CPPUNIT_ASSERT_EQUAL(uint32_t(2), l.quiet(16 * ms, 10 * ms));
            // Both silent: the device or the reader paused, nobody is quiet.
            CPPUNIT_ASSERT_EQUAL(uint32_t(0), l.quiet(40 * ms, 10 * ms));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_link_liveness);
