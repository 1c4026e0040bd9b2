/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The rate bound of the TX records (docs/metadata.md, "TX records"): one record per
// code per millisecond, merged records that keep their first sample and time and add
// their values, so that the values still add up to the device's counters.

#include "../meta/metadata_packet.h"
#include "tx_reports.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
using emu::tx_report;
using emu::tx_report_limiter;
namespace code = meta::event_code;

namespace {
constexpr int64_t ms = 1000000;
} // namespace

class qa_tx_reports : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_reports);
    CPPUNIT_TEST(test_first_goes_at_once_then_merged);
    CPPUNIT_TEST(test_codes_are_bound_apart);
    CPPUNIT_TEST(test_lead_and_time_error_merge_their_way);
    CPPUNIT_TEST(test_end_of_run_takes_everything);
    CPPUNIT_TEST(test_a_flood_is_bound);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_first_goes_at_once_then_merged()
    {
        tx_report_limiter l;
        tx_report out[6];
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, l.next_due());
        l.add({ code::tx_underflow, 100, 5000, 7 });
        CPPUNIT_ASSERT(l.next_due() <= 0);
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(10 * ms, out, 6));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), out[0].sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), out[0].value);
        // Within the millisecond: merged, the first sample and time kept.
        l.add({ code::tx_underflow, 200, 6000, 3 });
        l.add({ code::tx_underflow, 300, 7000, 4 });
        CPPUNIT_ASSERT_EQUAL(size_t(0), l.take(10 * ms + ms - 1, out, 6));
        CPPUNIT_ASSERT_EQUAL(11 * ms, l.next_due());
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(11 * ms, out, 6));
        CPPUNIT_ASSERT_EQUAL(uint32_t(code::tx_underflow), out[0].code);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), out[0].sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6000), out[0].time_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), out[0].value);
        CPPUNIT_ASSERT_EQUAL(size_t(0), l.take(20 * ms, out, 6));
    }

    void test_codes_are_bound_apart()
    {
        tx_report_limiter l;
        tx_report out[6];
        l.add({ code::tx_late, 1, 1, 10 });
        l.add({ code::tx_burst_ack, 2, 2, 20 });
        l.add({ code::tx_seq_error, 3, 3, 30 });
        l.add({ 3, 4, 4, 40 }); // an RX code: not a TX record
        CPPUNIT_ASSERT_EQUAL(size_t(3), l.take(0, out, 6));
        l.add({ code::tx_late, 5, 5, 1 });
        l.add({ code::tx_underflow, 6, 6, 2 }); // none of its code went yet
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(ms / 2, out, 6));
        CPPUNIT_ASSERT_EQUAL(uint32_t(code::tx_underflow), out[0].code);
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(ms, out, 6));
        CPPUNIT_ASSERT_EQUAL(uint32_t(code::tx_late), out[0].code);
    }

    void test_lead_and_time_error_merge_their_way()
    {
        tx_report_limiter l;
        tx_report out[6];
        l.add({ code::tx_lead, 0, 0, 1000 });
        l.add({ code::tx_time_error, 10, 500, 400 });
        CPPUNIT_ASSERT_EQUAL(size_t(2), l.take(0, out, 6));
        l.add({ code::tx_lead, 5, 5, 2000 });
        l.add({ code::tx_lead, 6, 6, 3000 }); // the lead is a state: the latest
        l.add({ code::tx_time_error, 20, 600, 410 });
        l.add({ code::tx_time_error, 30, 700, 420 }); // the first burst's take-up time
        CPPUNIT_ASSERT_EQUAL(size_t(2), l.take(ms, out, 6));
        const tx_report& lead = out[0].code == code::tx_lead ? out[0] : out[1];
        const tx_report& te = out[0].code == code::tx_lead ? out[1] : out[0];
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000), lead.value);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), lead.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), te.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(600), te.time_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(410), te.value);
    }

    void test_end_of_run_takes_everything()
    {
        tx_report_limiter l;
        tx_report out[6];
        l.add({ code::tx_underflow, 1, 1, 5 });
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(0, out, 6));
        l.add({ code::tx_underflow, 2, 2, 6 });
        CPPUNIT_ASSERT_EQUAL(size_t(0), l.take(1, out, 6));
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(2, out, 6, true));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), out[0].value);
        l.reset(); // a new run: every code may go at once
        l.add({ code::tx_underflow, 3, 3, 7 });
        CPPUNIT_ASSERT_EQUAL(size_t(1), l.take(3, out, 6));
    }

    void test_a_flood_is_bound()
    {
        // A million late pieces in a second: at most a thousand records, and their
        // values are the million.
        tx_report_limiter l;
        tx_report out[6];
        uint64_t records = 0, value = 0;
        for (int64_t i = 0; i < 1000000; i++) {
            l.add({ code::tx_late, uint64_t(i), uint64_t(i), 1 });
            const size_t n = l.take(i * 1000, out, 6);
            records += n;
            for (size_t k = 0; k < n; k++)
                value += out[k].value;
        }
        const size_t n = l.take(INT64_MAX, out, 6, true);
        records += n;
        for (size_t k = 0; k < n; k++)
            value += out[k].value;
        CPPUNIT_ASSERT(records <= 1001);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000), value);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_reports);
