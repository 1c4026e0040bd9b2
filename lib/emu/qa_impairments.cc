/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "impairments.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
using namespace gr::rdma::emu;

class qa_impairments : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_impairments);
    CPPUNIT_TEST(test_inactive_plan_touches_nothing);
    CPPUNIT_TEST(test_fates_are_reproducible_and_seeded);
    CPPUNIT_TEST(test_loss_rate_and_bursts);
    CPPUNIT_TEST(test_table_overrides_random_fates);
    CPPUNIT_TEST(test_fault_log_is_bounded_fifo);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_inactive_plan_touches_nothing()
    {
        impairment_plan plan{ impairment_config{} };
        CPPUNIT_ASSERT(!plan.active());
        for (uint64_t m = 0; m < 10000; m++)
            CPPUNIT_ASSERT_EQUAL(regs::fault::none, plan.fate(m));
    }

    void test_fates_are_reproducible_and_seeded()
    {
        impairment_config c;
        c.seed = 42;
        c.loss_ppm = 50000;
        c.duplicate_ppm = 50000;
        c.corrupt_ppm = 50000;
        c.delay_ppm = 50000;
        c.delay_messages = 2;
        impairment_plan a(c), b(c);
        c.seed = 43;
        impairment_plan other(c);
        int differ = 0, kinds[8] = {};
        for (uint64_t m = 0; m < 20000; m++) {
            CPPUNIT_ASSERT_EQUAL(a.fate(m), b.fate(m));
            differ += a.fate(m) != other.fate(m);
            kinds[a.fate(m)]++;
        }
        CPPUNIT_ASSERT(differ > 1000);
        for (uint32_t k : { regs::fault::drop,
                            regs::fault::duplicate,
                            regs::fault::corrupt_payload,
                            regs::fault::delay })
            CPPUNIT_ASSERT(kinds[k] > 500);
    }

    void test_loss_rate_and_bursts()
    {
        impairment_config c;
        c.seed = 7;
        c.loss_ppm = 10000; // 1 %
        c.loss_burst = 5;
        impairment_plan plan(c);
        const uint64_t n = 1000000;
        uint64_t dropped = 0, runs = 0, run = 0;
        for (uint64_t m = 0; m < n; m++) {
            if (plan.fate(m) == regs::fault::drop) {
                dropped++;
                run++;
            } else if (run) {
                // A run is one burst, or overlapping bursts: at least 5 long.
                CPPUNIT_ASSERT(run >= 5);
                runs++;
                run = 0;
            }
        }
        // About 1 % of messages start a burst of 5 (overlaps make it a little less).
        CPPUNIT_ASSERT(dropped > 45000 && dropped < 50500);
        CPPUNIT_ASSERT(runs > 8500 && runs < 10500);
    }

    void test_table_overrides_random_fates()
    {
        impairment_config c;
        c.loss_ppm = 1000000; // everything lost ...
        c.table[0] = { 3, regs::fault::bad_rkey };
        c.table[1] = { 1ull << 40, regs::fault::corrupt_icrc };
        c.table_size = 2;
        impairment_plan plan(c);
        CPPUNIT_ASSERT_EQUAL(regs::fault::drop, plan.fate(2));
        CPPUNIT_ASSERT_EQUAL(regs::fault::bad_rkey,
                             plan.fate(3)); // ... but the table wins
        CPPUNIT_ASSERT_EQUAL(regs::fault::corrupt_icrc, plan.fate(1ull << 40));
    }

    void test_fault_log_is_bounded_fifo()
    {
        fault_log log;
        for (uint64_t m = 0; m < fault_log::capacity + 10; m++)
            log.push({ m, regs::fault::drop });
        CPPUNIT_ASSERT_EQUAL(fault_log::capacity, log.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), log.discarded());
        fault_record r;
        CPPUNIT_ASSERT(log.pop(r));
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), r.message); // the oldest kept
        log.clear();
        CPPUNIT_ASSERT(!log.pop(r));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_impairments);
