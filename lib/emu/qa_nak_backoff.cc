/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Water filling's NAK backoff (docs/register-map.md, "Policies"): new NAKs on a link
// halve what it may carry at the next run, runs without them give it back by 1/8 until
// it is whole, and the shares of the cut link stay fair.

#include "rate_controller.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma::emu;

namespace {

constexpr int64_t ms = 1000000;
constexpr double M = 1e6;

// One stream on link 0, no capacity known, 100 MB/s of demand: water filling gives it
// all of it.
void one_stream(rate_controller& c)
{
    CPPUNIT_ASSERT(c.set_policy(1));
    c.set_links(0, 1);
    c.post({ ctrl_kind::demand, 0, 0, uint64_t(100 * M) });
}

} // namespace

class qa_nak_backoff : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_nak_backoff);
    CPPUNIT_TEST(test_new_naks_halve_then_runs_regain);
    CPPUNIT_TEST(test_a_count_that_did_not_grow_cuts_nothing);
    CPPUNIT_TEST(test_a_cut_link_is_shared_fairly);
    CPPUNIT_TEST(test_repeated_naks_stop_at_the_floor);
    CPPUNIT_TEST(test_other_policies_do_not_cut);
    CPPUNIT_TEST(test_tx_rereads_cut_the_links_other_direction);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_new_naks_halve_then_runs_regain()
    {
        rate_controller c;
        one_stream(c);
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(0).limited);
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, c.next_run_ns()); // nothing waits
        c.post({ ctrl_kind::nak, 0, 0, 5 });
        CPPUNIT_ASSERT(c.tick(1 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(c.output(0).limited);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.backoff().cuts());
        // No more events, yet the loop runs every period while the link regains.
        double expected = 50 * M;
        int64_t t = 1 * ms;
        for (int run = 0; run < 5; run++) {
            t += 1 * ms;
            CPPUNIT_ASSERT(c.tick(t));
            expected *= 1.125;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(expected, c.output(0).rate, 1.0);
            CPPUNIT_ASSERT(c.output(0).limited);
        }
        // 50 x 1.125^6 > 100: the sixth run makes the link whole, then nothing waits.
        t += 1 * ms;
        CPPUNIT_ASSERT(c.tick(t));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(0).limited);
        CPPUNIT_ASSERT(!c.backoff().recovering());
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, c.next_run_ns());
    }

    void test_tx_rereads_cut_the_links_other_direction()
    {
        // An RX stream and a TX stream on link 0: the TX stream's re-reads cut what its
        // READs may take of the link's other direction, not the RX stream's rate.
        rate_controller c;
        one_stream(c);
        ctrl_tx_state tx;
        tx.link = 0;
        tx.demand = uint64_t(80 * M);
        c.set_tx(0, tx);
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(80 * M, c.tx_output(0).rate, 1.0);
        c.post({ ctrl_kind::reread, 0, 0, 4 });
        CPPUNIT_ASSERT(c.tick(1 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(40 * M, c.tx_output(0).rate, 1.0);
        CPPUNIT_ASSERT(c.tx_output(0).limited);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.tx_backoff().cuts());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.backoff().cuts());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        // A START (set_tx) keeps the count: the same count again is no re-read.
        c.set_tx(0, tx);
        c.post({ ctrl_kind::reread, 0, 0, 4 });
        CPPUNIT_ASSERT(c.tick(2 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.tx_backoff().cuts());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(45 * M, c.tx_output(0).rate, 1.0);
        // Runs without re-reads give it back, as on the RX side.
        int64_t t = 2 * ms;
        while (c.tx_backoff().recovering() && t < 100 * ms)
            CPPUNIT_ASSERT(c.tick(t += 1 * ms));
        CPPUNIT_ASSERT(!c.tx_backoff().recovering());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(80 * M, c.tx_output(0).rate, 1.0);
        // Policy 0 follows the count and cuts nothing.
        CPPUNIT_ASSERT(c.set_policy(0));
        c.post({ ctrl_kind::reread, 0, 0, 9 });
        CPPUNIT_ASSERT(c.tick(t += 1 * ms));
        CPPUNIT_ASSERT(c.set_policy(1));
        CPPUNIT_ASSERT(c.tick(t += 1 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.tx_backoff().cuts());
        // An event for a TX stream the controller has no room for is rejected.
        const uint64_t rejected = c.queue().rejected();
        c.post({ ctrl_kind::reread, uint8_t(ctrl_max_tx_streams), 0, 1 });
        CPPUNIT_ASSERT_EQUAL(rejected + 1, c.queue().rejected());
    }

    void test_a_count_that_did_not_grow_cuts_nothing()
    {
        rate_controller c;
        one_stream(c);
        c.post({ ctrl_kind::nak, 0, 0, 7 });
        CPPUNIT_ASSERT(c.tick(0)); // the first count seen: 7 new NAKs
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.backoff().cuts());
        for (int run = 1; run <= 6; run++)
            CPPUNIT_ASSERT(c.tick(run * ms));
        CPPUNIT_ASSERT(!c.backoff().recovering());
        // The same count again, then a lower one (the stream's next run counts from 0):
        // no new NAKs, no cut.
        c.post({ ctrl_kind::nak, 0, 0, 7 });
        CPPUNIT_ASSERT(c.tick(10 * ms));
        c.post({ ctrl_kind::nak, 0, 0, 2 });
        CPPUNIT_ASSERT(c.tick(11 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.backoff().cuts());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        // From the lower count on, growth is new NAKs again.
        c.post({ ctrl_kind::nak, 0, 0, 3 });
        CPPUNIT_ASSERT(c.tick(12 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.backoff().cuts());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50 * M, c.output(0).rate, 1.0);
    }

    void test_a_cut_link_is_shared_fairly()
    {
        // Two streams of 100 MB/s on one link of 120 MB/s: 60 each. A NAK on stream 0's
        // destination cuts the link to 60: 30 each, not the NAKed stream alone.
        rate_controller c;
        CPPUNIT_ASSERT(c.set_policy(1));
        c.set_capacity(0, 120 * M);
        c.set_links(0, 1);
        c.set_links(1, 1);
        c.post({ ctrl_kind::demand, 0, 0, uint64_t(100 * M) });
        c.post({ ctrl_kind::demand, 1, 0, uint64_t(100 * M) });
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60 * M, c.output(0).rate, 1.0);
        c.post({ ctrl_kind::nak, 0, 0, 1 });
        CPPUNIT_ASSERT(c.tick(1 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(30 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(30 * M, c.output(1).rate, 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60 * M, c.backoff().estimate(0), 1.0);
        // Regained, the link is its capacity again: 60 each.
        for (int run = 2; run < 10; run++)
            c.tick(run * ms);
        CPPUNIT_ASSERT(!c.backoff().recovering());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60 * M, c.output(1).rate, 1.0);
    }

    void test_repeated_naks_stop_at_the_floor()
    {
        rate_controller c;
        one_stream(c);
        CPPUNIT_ASSERT(c.tick(0));
        for (int run = 1; run <= 20; run++) {
            c.post({ ctrl_kind::nak, 0, 0, uint64_t(run) });
            CPPUNIT_ASSERT(c.tick(run * ms));
        }
        // Halved 20 times it would be ~95 B/s: held at 1/64 of the demand instead.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M / 64, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), c.backoff().cuts());
    }

    void test_other_policies_do_not_cut()
    {
        rate_controller c;
        one_stream(c);
        CPPUNIT_ASSERT(c.set_policy(0));
        c.post({ ctrl_kind::nak, 0, 0, 40 });
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(0).limited);
        // Back to water filling: the NAKs counted meanwhile are not new.
        CPPUNIT_ASSERT(c.set_policy(1));
        CPPUNIT_ASSERT(c.tick(1 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.backoff().cuts());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_nak_backoff);
