/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One share of a stream split over several hosts (docs/links.md, "Several hosts"):
// local samples <-> the stream's, against the message rule of regs::link_schedule;
// the clock counted in a share's samples; share= parsed with errors naming the fix.

#include "../regs/link_schedule.h"
#include "../util/device_args.h"
#include "share_args.h"
#include "share_layout.h"
#include "stream_clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>

using namespace gr::rdma;

class qa_share_layout : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_share_layout);
    CPPUNIT_TEST(test_samples_follow_the_message_rule);
    CPPUNIT_TEST(test_local_below_counts_each_share_once);
    CPPUNIT_TEST(test_runs_end_at_block_boundaries);
    CPPUNIT_TEST(test_one_share_is_the_stream);
    CPPUNIT_TEST(test_clock_in_local_samples);
    CPPUNIT_TEST(test_share_args);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_samples_follow_the_message_rule()
    {
        // Every sample of every message: its share and local index as the schedule
        // (shared with the device) says, item by item.
        for (unsigned shares : { 2u, 3u, 8u }) {
            for (uint64_t block : { 1u, 16u, 5u }) {
                const uint64_t ipm = 7;
                const gr::rdma::regs::link_schedule sched(shares, block);
                for (unsigned h = 0; h < shares; h++) {
                    const share_layout l(h, shares, block, ipm);
                    for (uint64_t j = 0; j < 40 * block * ipm; j += 3) {
                        const uint64_t m = sched.stream_message(h, j / ipm);
                        CPPUNIT_ASSERT_EQUAL(m * ipm + j % ipm, l.stream_sample(j));
                        CPPUNIT_ASSERT_EQUAL(h, sched.share_of(l.stream_sample(j) / ipm));
                        // Inverse: j is the count of the share's samples before it.
                        CPPUNIT_ASSERT_EQUAL(j, l.local_below(l.stream_sample(j)));
                    }
                }
            }
        }
    }

    void test_local_below_counts_each_share_once()
    {
        // The shares' local counts add up to the stream's, at every sample count.
        const unsigned shares = 3;
        const uint64_t block = 4, ipm = 5;
        for (uint64_t n = 0; n < 400; n++) {
            uint64_t sum = 0;
            for (unsigned h = 0; h < shares; h++)
                sum += share_layout(h, shares, block, ipm).local_below(n);
            CPPUNIT_ASSERT_EQUAL(n, sum);
        }
        const share_layout second(1, shares, block, ipm); // samples 20..39, 80..99, ...
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), second.local_below(20));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), second.local_below(21));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), second.local_below(40));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), second.local_below(80));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), second.block_items());
    }

    void test_runs_end_at_block_boundaries()
    {
        const share_layout l(1, 2, 2, 3); // blocks of 6 samples
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), l.run_from(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), l.run_from(5));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), l.run_from(6));
        for (uint64_t j = 0; j < 60; j++)
            for (uint64_t k = 1; k < l.run_from(j); k++)
                CPPUNIT_ASSERT_EQUAL(l.stream_sample(j) + k, l.stream_sample(j + k));
    }

    void test_one_share_is_the_stream()
    {
        const share_layout l;
        CPPUNIT_ASSERT(!l.split());
        for (uint64_t j : { 0ull, 1ull, 12345678901ull }) {
            CPPUNIT_ASSERT_EQUAL(j, l.stream_sample(j));
            CPPUNIT_ASSERT_EQUAL(j, l.local_below(j));
        }
    }

    void test_clock_in_local_samples()
    {
        // 1 MS/s, share 1 of 2 in blocks of 1000 samples: its local sample 0 is the
        // stream's 1000, taken 1 ms after t0; by 2.5 ms the stream produced 2500
        // samples, of which this share's are 1000..1999: 1000 local ones.
        const uint64_t t0 = 1796000000000000000ull;
        const share_layout l(1, 2, 10, 100);
        const stream_clock stream(rational_rate(1e6), t0, 0, 0, 0);
        const stream_clock c = stream.with_share(l);
        CPPUNIT_ASSERT_EQUAL(t0 + 1000000, c.time_of(0));
        CPPUNIT_ASSERT_EQUAL(t0 + 3000000, c.time_of(1000)); // stream sample 3000
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_at(int64_t(t0 + 999999)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), c.samples_at(int64_t(t0 + 1500000)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_at(int64_t(t0 + 2500000)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.first_sample_from(t0 + 2000001));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1001), c.first_sample_from(t0 + 3000001));
        // Local count 1000 is final once stream sample 1999 is taken (not sample 999).
        CPPUNIT_ASSERT_EQUAL(stream.host_time_final(2000), c.host_time_final(1000));
        CPPUNIT_ASSERT_EQUAL(stream.host_time_final(0), c.host_time_final(0));
    }

    void test_share_args()
    {
        const auto plan = [](const std::string& text) {
            return share_plan::from_args(device_args::parse(text));
        };
        const share_plan none = plan("type=emu");
        CPPUNIT_ASSERT(!none.split());
        const share_plan p = plan("share=1/3,share_block=64,share_wait=2.5");
        CPPUNIT_ASSERT_EQUAL(1u, p.share);
        CPPUNIT_ASSERT_EQUAL(3u, p.shares);
        CPPUNIT_ASSERT_EQUAL(uint32_t(64), p.block);
        CPPUNIT_ASSERT_EQUAL(2.5, p.wait_s);
        CPPUNIT_ASSERT(!p.leads());
        CPPUNIT_ASSERT_EQUAL(std::string("share 1 of 3"), p.name());
        CPPUNIT_ASSERT_EQUAL(uint32_t(16), plan("share=0/2").block);
        for (const char* bad : { "share=2/2",
                                 "share=1",
                                 "share=/2",
                                 "share=1/9",
                                 "share=0/0",
                                 "share=a/b",
                                 "share=1/2/3",
                                 "share=-1/2",
                                 "share=1/2,share_block=0",
                                 "share=1/2,share_block=65537",
                                 "share=1/2,share_wait=0",
                                 "share_block=8",
                                 "share_wait=1" }) {
            try {
                plan(bad);
                CPPUNIT_FAIL(std::string("accepted ") + bad);
            } catch (const std::invalid_argument& e) {
                const std::string what = e.what();
                CPPUNIT_ASSERT_MESSAGE(bad + std::string(": ") + what,
                                       what.find("share") != std::string::npos);
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_share_layout);
