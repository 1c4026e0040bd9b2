/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A TX stream's READ pacing (docs/register-map.md, "TX streams' READs"): re-reads are
// charged as whole messages against CTRL_TX_RATE, no rate is no limit, and the
// controller hears of re-reads once per pass, on a change, from 0 again after a reset.
// Time is the test's own numbers.

#include "tx_read_pacer.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <cstdint>
#include <vector>

using namespace gr::rdma::emu;

namespace {

constexpr int64_t ms = 1000000;
constexpr uint64_t message = 1000; // bytes

struct heard : ctrl_sink {
    std::vector<uint64_t> counts;
    unsigned stream = 99;
    void naks(unsigned, unsigned, uint64_t) override {}
    void rereads(unsigned s, uint64_t n) override
    {
        stream = s;
        counts.push_back(n);
    }
};

} // namespace

class qa_tx_read_pacer : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_read_pacer);
    CPPUNIT_TEST(test_no_rate_is_no_limit);
    CPPUNIT_TEST(test_rereads_take_the_rate);
    CPPUNIT_TEST(test_the_controller_hears_changes_only);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_no_rate_is_no_limit()
    {
        tx_read_pacer p;
        p.begin_pass(0, 1000, message); // no source: re-reads charge nothing
        CPPUNIT_ASSERT(!p.limited());
        for (int i = 0; i < 100; i++) {
            CPPUNIT_ASSERT(p.allows(0, message));
            p.took(0, message);
        }
    }

    void test_rereads_take_the_rate()
    {
        // 1 MB/s: one 1000-byte READ per ms. Two passes apart by 10 ms with 5 re-reads
        // between: they take 5 of the 10 READs' room.
        std::atomic<uint64_t> rate{ 1000000 };
        tx_read_pacer p;
        p.set_rate_source(&rate);
        const int64_t t0 = 100 * ms;
        p.begin_pass(t0, 0, message);
        CPPUNIT_ASSERT(p.limited());
        const auto reads_until = [&](int64_t end) {
            unsigned n = 0;
            for (int64_t t = t0; t < end; t += ms / 10)
                while (p.allows(t, message)) {
                    p.took(t, message);
                    n++;
                }
            return n;
        };
        const unsigned plain = reads_until(t0 + 10 * ms);
        p.begin_pass(t0 + 10 * ms, 5, message);
        const int64_t after = p.next_ns();
        CPPUNIT_ASSERT(after >= t0 + 14 * ms); // 5 ms of room gone to the re-reads
        // The same re-reads are charged once.
        p.begin_pass(t0 + 10 * ms, 5, message);
        CPPUNIT_ASSERT_EQUAL(after, p.next_ns());
        CPPUNIT_ASSERT(plain >= 10 && plain <= 12);
        // 0 is no limit again.
        rate = 0;
        p.begin_pass(t0 + 11 * ms, 5, message);
        CPPUNIT_ASSERT(p.allows(t0 + 11 * ms, message));
    }

    void test_the_controller_hears_changes_only()
    {
        heard sink;
        tx_read_pacer p;
        p.set_ctrl_sink(&sink, 3);
        p.report(0); // nothing since the start
        p.report(2);
        p.report(2);
        p.report(7);
        p.reset(); // a new run: its requester counts from 0
        p.report(0);
        p.report(1);
        CPPUNIT_ASSERT_EQUAL(3u, sink.stream);
        CPPUNIT_ASSERT(sink.counts == std::vector<uint64_t>({ 2, 7, 1 }));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_read_pacer);
