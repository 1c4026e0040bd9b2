/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's side of queued TX bursts without a device: the producer's boundaries as
// TX burst queue entries (tx_burst_plan), and the log of what was pushed
// (tx_burst_log) that the TX records are checked against.

#include "tx_burst_log.h"
#include "tx_burst_plan.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

namespace {

constexpr uint64_t t0 = 1000000000000ull; // the run's start
constexpr uint64_t us = 1000;             // 1 MS/s: an item per microsecond

struct plan_fixture {
    tx_burst_plan p;
    plan_fixture() { p.reset(); }
    void start() { p.run_started(t0, { 1000000, 1 }); }
    //! The front entry, then pushed as resolved (the device's time far ahead).
    tx_burst_entry push()
    {
        CPPUNIT_ASSERT(p.front());
        const tx_burst_entry e = *p.front();
        const tx_burst_plan::decision d = p.resolve(UINT64_MAX / 2, 0);
        CPPUNIT_ASSERT(d.now);
        p.pushed(d.time_ns);
        return e;
    }
};

void assert_entry(const tx_burst_entry& e, bool start, uint64_t item, uint64_t time)
{
    CPPUNIT_ASSERT_EQUAL(start, e.start);
    CPPUNIT_ASSERT_EQUAL(item, e.item);
    CPPUNIT_ASSERT_EQUAL(time, e.time_ns);
}

} // namespace

class qa_tx_burst_plan : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_burst_plan);
    CPPUNIT_TEST(test_items_outside_a_burst_begin_one_at_once);
    CPPUNIT_TEST(test_a_burst_without_items_is_none);
    CPPUNIT_TEST(test_a_time_inside_a_burst_ends_it_there);
    CPPUNIT_TEST(test_the_device_sees_items_up_to_the_first_end_not_pushed);
    CPPUNIT_TEST(test_a_start_behind_the_earliest_goes_late_once_passed);
    CPPUNIT_TEST(test_room_is_bounded);
    CPPUNIT_TEST(test_log_finds_what_was_pushed);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_items_outside_a_burst_begin_one_at_once()
    {
        // Untagged input: one open burst from item 0, as continuous streaming.
        plan_fixture f;
        CPPUNIT_ASSERT(!f.p.in_burst());
        f.p.committing(0);
        f.p.committing(100); // still the same burst
        CPPUNIT_ASSERT(f.p.in_burst());
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.p.waiting());
        f.start();
        assert_entry(f.push(), true, 0, 0);
        CPPUNIT_ASSERT(f.p.open_pushed());
        // After an END the next items begin a burst as soon as possible.
        f.p.end(500);
        f.p.committing(500);
        assert_entry(f.push(), false, 500, 0);
        assert_entry(f.push(), true, 500, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), f.p.last_end_pushed());
        f.p.end(500); // an END where nothing was committed since: none
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.p.waiting());
        CPPUNIT_ASSERT(f.p.in_burst());
    }

    void test_a_burst_without_items_is_none()
    {
        plan_fixture f;
        f.p.begin(0, t0 + 5 * us);
        CPPUNIT_ASSERT(f.p.in_burst());
        f.p.end(0);
        CPPUNIT_ASSERT(!f.p.in_burst());
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.p.waiting());
        // Begun twice at one item: the later time wins.
        f.p.begin(0, t0 + 5 * us);
        f.p.begin(0, t0 + 9 * us);
        f.p.committing(0);
        f.start();
        assert_entry(f.push(), true, 0, t0 + 9 * us);
    }

    void test_a_time_inside_a_burst_ends_it_there()
    {
        plan_fixture f;
        f.start();
        f.p.committing(0);
        f.p.begin(300, t0 + 1000 * us); // tx_time on item 300: END(300) + START(300, T)
        CPPUNIT_ASSERT_EQUAL(size_t(2), f.p.waiting());
        f.p.committing(300);
        assert_entry(f.push(), true, 0, 0);
        assert_entry(f.push(), false, 300, 0);
        assert_entry(f.push(), true, 300, t0 + 1000 * us);
        // An eob and a time at one position: END once, then the START.
        f.p.end(400);
        f.p.begin(400, t0 + 2000 * us);
        f.p.committing(400);
        assert_entry(f.push(), false, 400, 0);
        assert_entry(f.push(), true, 400, t0 + 2000 * us);
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.p.waiting());
    }

    void test_the_device_sees_items_up_to_the_first_end_not_pushed()
    {
        plan_fixture f;
        f.p.committing(0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), f.p.publish_limit(100)); // no END: all
        f.p.end(100);
        f.p.committing(100);
        f.p.end(250);
        // Not pushed yet (before START, or the device's queue full): nothing past 100.
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), f.p.publish_limit(300));
        f.start();
        f.push(); // START(0)
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), f.p.publish_limit(300));
        f.push(); // END(100)
        CPPUNIT_ASSERT_EQUAL(uint64_t(250), f.p.publish_limit(300));
        f.push(); // START(100)
        f.push(); // END(250)
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), f.p.publish_limit(300));
    }

    void test_a_start_behind_the_earliest_goes_late_once_passed()
    {
        // The register map's rule (TBQ_STATUS error 4): a nonzero time before the end
        // of the burst before, as far as the entries tell (the run's start first).
        plan_fixture f;
        f.start();
        CPPUNIT_ASSERT_EQUAL(t0, f.p.earliest_ns());
        f.p.begin(0, t0 - 1); // before the run's start
        f.p.committing(0);
        const uint64_t margin = 777;
        tx_burst_plan::decision d = f.p.resolve(t0 + margin - 1, margin);
        CPPUNIT_ASSERT(d.late);
        CPPUNIT_ASSERT(!d.now); // the device's clock has not passed it yet
        CPPUNIT_ASSERT_EQUAL(t0, d.time_ns);
        CPPUNIT_ASSERT_EQUAL(t0 + margin, d.not_before_ns);
        d = f.p.resolve(t0 + margin, margin);
        CPPUNIT_ASSERT(d.late && d.now);
        f.p.pushed(d.time_ns);
        f.p.end(1000);
        f.push();
        // 1000 items from the anchor: the earliest is 1 ms after it.
        CPPUNIT_ASSERT_EQUAL(t0 + 1000 * us, f.p.earliest_ns());
        f.p.begin(1000, t0 + 1000 * us - 1); // overlapping the burst before: late
        f.p.committing(1000);
        d = f.p.resolve(0, 0);
        CPPUNIT_ASSERT(d.late);
        CPPUNIT_ASSERT_EQUAL(t0 + 1000 * us, d.time_ns);
        f.p.pushed(d.time_ns);
        f.p.end(1003);
        f.push();
        // An as-soon-as-possible burst moves nothing but the offset.
        f.p.committing(1003);
        f.p.end(1010);
        assert_entry(f.push(), true, 1003, 0);
        f.push();
        CPPUNIT_ASSERT_EQUAL(t0 + 1010 * us, f.p.earliest_ns());
        f.p.begin(1010, t0 + 1010 * us); // exactly the earliest: the device's call
        f.p.committing(1010);
        d = f.p.resolve(0, 0);
        CPPUNIT_ASSERT(!d.late && d.now);
        CPPUNIT_ASSERT_EQUAL(t0 + 1010 * us, d.time_ns);
    }

    void test_room_is_bounded()
    {
        plan_fixture f;
        uint64_t k = 0;
        while (f.p.has_room()) {
            f.p.committing(k);
            f.p.end(k + 1);
            k++;
        }
        CPPUNIT_ASSERT(f.p.waiting() + 2 > tx_burst_plan::capacity);
        CPPUNIT_ASSERT(f.p.waiting() <= tx_burst_plan::capacity);
        f.start();
        f.push();
        f.push();
        CPPUNIT_ASSERT(f.p.has_room());
    }

    void test_log_finds_what_was_pushed()
    {
        tx_burst_log log;
        log.started(0, 0, 0);
        log.ended(100);
        log.started(100, 5, 7);
        CPPUNIT_ASSERT(log.ends_at(100));
        CPPUNIT_ASSERT(!log.ends_at(99));
        CPPUNIT_ASSERT(!log.ends_at(101));
        tx_logged_burst b;
        CPPUNIT_ASSERT(log.find(100, b));
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), b.requested_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), b.pushed_ns);
        CPPUNIT_ASSERT_EQUAL(tx_logged_burst::open, b.end);
        CPPUNIT_ASSERT(!log.find(50, b)); // not a START
        log.ended(130);
        CPPUNIT_ASSERT(log.ends_at(130));
        // Bounded: the oldest go.
        for (uint64_t k = 0; k < tx_burst_log::capacity; k++) {
            log.started(200 + 2 * k, 0, 0);
            log.ended(201 + 2 * k);
        }
        CPPUNIT_ASSERT(!log.find(0, b));
        CPPUNIT_ASSERT(!log.ends_at(100));
        CPPUNIT_ASSERT(log.find(200, b));
        CPPUNIT_ASSERT(log.ends_at(201 + 2 * (tx_burst_log::capacity - 1)));
        log.reset();
        CPPUNIT_ASSERT(!log.find(200, b));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), log.published());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_burst_plan);
