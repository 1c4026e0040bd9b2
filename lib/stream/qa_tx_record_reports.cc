/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A TX stream's reports from the device's TX records (tx_record_reports) on synthetic
// records: what each becomes, what is not believed (docs/security.md), and the
// reconciliation with the counters when records are lost.

#include "tx_record_reports.h"
#include "tx_report_gate.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
namespace code = gr::rdma::meta::event_code;

namespace {

constexpr uint64_t t0 = 1000000000000ull;
constexpr uint64_t us = 1000;              // 1 MS/s
constexpr uint64_t now = t0 + 100000 * us; // 100 ms into the run

meta::record rec(uint32_t c, uint64_t sample, uint64_t time, uint64_t value)
{
    meta::record r;
    r.type = meta::record_type::event;
    r.stream = meta::tx_stream_byte(0);
    r.code = c;
    r.sample = sample;
    r.time_ns = time;
    r.value = value;
    return r;
}

struct fixture {
    tx_burst_log log;
    tx_record_reports rep;
    fixture()
    {
        tx_record_reports::run r;
        r.t0_ns = t0;
        r.rate = { 1000000, 1 };
        r.min_lead_ns = 200000;
        r.max_lead_ns = 50000000;
        rep.start(r);
        // Bursts [0, 1000) as soon as possible, [1000, 3000) at t0 + 20 ms, then one
        // at t0 + 50 ms from 3000, open; 5000 items given to the device.
        log.started(0, 0, 0);
        log.ended(1000);
        log.started(1000, t0 + 20000 * us, t0 + 20000 * us);
        log.ended(3000);
        log.started(3000, t0 + 50000 * us, t0 + 50000 * us);
        log.published(5000);
    }
    bool take(const meta::record& r, tx_event& e) { return rep.take(r, now, log, e); }
};

} // namespace

class qa_tx_record_reports : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_record_reports);
    CPPUNIT_TEST(test_records_become_the_devices_reports);
    CPPUNIT_TEST(test_records_beyond_what_the_device_can_have_done_are_ignored);
    CPPUNIT_TEST(test_a_time_error_counts_its_burst_once_its_end_is_known);
    CPPUNIT_TEST(test_a_burst_is_dropped_once_and_in_order);
    CPPUNIT_TEST(test_lost_records_are_reported_once_per_kind_at_the_end);
    CPPUNIT_TEST(test_records_beyond_the_counters_are_not_reported_again);
    CPPUNIT_TEST(test_a_covered_report_goes_once_the_counters_show_it);
    CPPUNIT_TEST(test_a_record_that_comes_while_its_entry_is_pushed_is_the_devices);
    CPPUNIT_TEST(test_an_entry_whose_push_failed_leaves_no_trace);
    CPPUNIT_TEST(test_a_flood_of_one_kind_pushes_out_only_its_own_kind);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_a_record_that_comes_while_its_entry_is_pushed_is_the_devices()
    {
        // The device may take an entry and send its record before the host's push
        // returns (a START whose time has passed: a time error at once), and the
        // stream's watch thread checks the record meanwhile. tx_stream pushes inside
        // will_start()/will_end(): what the device answers during the push is
        // checked against the entry being pushed (a record judged before it would be
        // taken as forged, and its burst reported unattributed at the end).
        fixture f;
        tx_event e;
        f.log.ended(4000);
        {
            auto start = f.log.will_start(4000, t0 + 30000 * us, t0 + 36000 * us);
            CPPUNIT_ASSERT(!f.take(
                rec(code::tx_time_error, 4000, t0 + 36000 * us, t0 + 36100 * us), e));
            start.keep();
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.rep.rejected()); // held until its END
        {
            auto end = f.log.will_end(4700);
            tx_event r;
            CPPUNIT_ASSERT(f.rep.release(f.log, false, r));
            CPPUNIT_ASSERT(r.type == tx_event::kind::time_error);
            CPPUNIT_ASSERT_EQUAL(uint64_t(4000), r.item);
            CPPUNIT_ASSERT_EQUAL(uint64_t(700), r.count);
            CPPUNIT_ASSERT_EQUAL(t0 + 30000 * us, r.time_ns); // the time asked
            CPPUNIT_ASSERT(!r.unattributed);
            // The burst's ack, sent before the END's push returned.
            CPPUNIT_ASSERT(f.take(rec(code::tx_burst_ack, 4700, t0 + 40000 * us, 0), e));
            end.keep();
        }
        CPPUNIT_ASSERT(f.log.ends_at(4700));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.rep.rejected());
    }

    void test_an_entry_whose_push_failed_leaves_no_trace()
    {
        // A push refused (queue full) or unanswered is withdrawn from the log: a record
        // naming it is not the device's, and the retry logs it again.
        fixture f;
        tx_event e;
        f.log.ended(4000);
        {
            auto start = f.log.will_start(4000, t0 + 30000 * us, t0 + 36000 * us);
        }
        tx_logged_burst b;
        CPPUNIT_ASSERT(!f.log.find(4000, b));
        CPPUNIT_ASSERT(f.log.find(3000, b));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), b.end); // the END before it stays
        CPPUNIT_ASSERT(!f.take(
            rec(code::tx_time_error, 4000, t0 + 36000 * us, t0 + 36100 * us), e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.rep.rejected());
        {
            auto start = f.log.will_start(4000, t0 + 30000 * us, t0 + 37000 * us);
            start.keep();
        }
        {
            auto end = f.log.will_end(4500);
        }
        CPPUNIT_ASSERT(!f.log.ends_at(4500));
        CPPUNIT_ASSERT(f.log.find(4000, b));
        CPPUNIT_ASSERT_EQUAL(tx_logged_burst::open, b.end);
        CPPUNIT_ASSERT_EQUAL(t0 + 37000 * us, b.pushed_ns);
        CPPUNIT_ASSERT(!f.take(rec(code::tx_burst_ack, 4500, t0 + 40000 * us, 500), e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.rep.rejected());
    }

    void test_records_become_the_devices_reports()
    {
        fixture f;
        tx_event e;
        CPPUNIT_ASSERT(f.take(rec(code::tx_underflow, 5000, t0 + 60000 * us, 2000), e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::underflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), e.count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5000), e.item);
        CPPUNIT_ASSERT_EQUAL(t0 + 60000 * us, e.time_ns);
        CPPUNIT_ASSERT(!e.unattributed);
        CPPUNIT_ASSERT(f.take(rec(code::tx_late, 1200, t0 + 20200 * us, 256), e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::late);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), e.count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1200), e.item);
        CPPUNIT_ASSERT(f.take(rec(code::tx_burst_ack, 3000, t0 + 22000 * us, 1744), e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::burst_ack);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000), e.item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1744), e.count);
        CPPUNIT_ASSERT_EQUAL(1u, e.bursts);
        CPPUNIT_ASSERT_EQUAL(t0 + 22000 * us, e.time_ns);
        CPPUNIT_ASSERT(f.take(rec(code::tx_lead, 900, t0 + 900 * us, 3000000), e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::lead);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000000), e.value);
        CPPUNIT_ASSERT(f.take(rec(code::tx_seq_error, 1024, t0 + 5000 * us, 3), e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::seq_error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), e.count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), e.item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), f.rep.accepted());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.rep.rejected());
    }

    void test_records_beyond_what_the_device_can_have_done_are_ignored()
    {
        fixture f;
        tx_event e;
        const meta::record forged[] = {
            // More zeros than ticks since the start (100 ms: 100000 ticks).
            rec(code::tx_underflow, 5000, t0 + 1 * us, 200000),
            // Zeros that would end after now.
            rec(code::tx_underflow, 5000, now - 10 * us, 1000),
            // Waiting for an item beyond what the device was given.
            rec(code::tx_underflow, 5001, t0 + 60000 * us, 10),
            // A late piece beyond it.
            rec(code::tx_late, 4900, t0 + 60000 * us, 200),
            // Before the run's start; after the device's time now.
            rec(code::tx_late, 0, t0 - 2 * us, 10),
            rec(code::tx_underflow, 0, now + 2 * us, 1),
            // An ack at no END the host pushed; more played than the device was
            // given, or than its ticks since the start.
            rec(code::tx_burst_ack, 2999, t0 + 22000 * us, 10),
            rec(code::tx_burst_ack, 1000, t0 + 2000 * us, 5001),
            // A time_error at no START; at a START without a time; with another time.
            rec(code::tx_time_error, 1500, t0 + 20000 * us, t0 + 30000 * us),
            rec(code::tx_time_error, 0, t0 + 20000 * us, t0 + 30000 * us),
            rec(code::tx_time_error, 1000, t0 + 20001 * us, t0 + 30000 * us),
            // Found passed in the future.
            rec(code::tx_time_error, 1000, t0 + 20000 * us, now + 5 * us),
            // A lead outside the bounds programmed.
            rec(code::tx_lead, 10, t0 + 10 * us, 100),
            rec(code::tx_lead, 10, t0 + 10 * us, 60000000),
            // Re-reads of what was never given.
            rec(code::tx_seq_error, 6000, t0 + 10 * us, 1),
            // A code that is no TX record.
            rec(code::zero_substituted, 10, t0 + 10 * us, 1),
        };
        for (const meta::record& r : forged)
            CPPUNIT_ASSERT(!f.take(r, e));
        meta::record not_event = rec(code::tx_underflow, 5000, t0 + 60000 * us, 10);
        not_event.type = meta::record_type::timestamp;
        CPPUNIT_ASSERT(!f.take(not_event, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(std::size(forged) + 1), f.rep.rejected());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.rep.accepted());
        // What the device can have done passes, to the tick; a burst_ack merged with
        // the next bursts' (the device's rate bound) keeps the first END and time.
        CPPUNIT_ASSERT(f.take(rec(code::tx_underflow, 5000, now - 1000 * us, 1000), e));
        CPPUNIT_ASSERT(f.take(rec(code::tx_late, 4800, t0 + 60000 * us, 200), e));
        CPPUNIT_ASSERT(f.take(rec(code::tx_burst_ack, 1000, t0 + 1000 * us, 3000), e));
        // Samples acked twice over are not: each item plays once.
        CPPUNIT_ASSERT(!f.take(rec(code::tx_burst_ack, 3000, t0 + 22000 * us, 2001), e));
    }

    void test_a_time_error_counts_its_burst_once_its_end_is_known()
    {
        fixture f;
        tx_event e;
        // The open burst from 3000 at t0 + 50 ms, found passed at t0 + 51 ms: held
        // until its END says how many items it drops.
        CPPUNIT_ASSERT(
            !f.take(rec(code::tx_time_error, 3000, t0 + 50000 * us, t0 + 51000 * us), e));
        CPPUNIT_ASSERT(!f.rep.release(f.log, false, e));
        f.log.ended(4200);
        CPPUNIT_ASSERT(f.rep.release(f.log, false, e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::time_error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000), e.item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1200), e.count);
        CPPUNIT_ASSERT_EQUAL(t0 + 50000 * us, e.time_ns);
        CPPUNIT_ASSERT_EQUAL(t0 + 51000 * us, e.value);
        CPPUNIT_ASSERT_EQUAL(1u, e.bursts);
        // A burst whose END is known reports at once, with the time asked for (a START
        // the host sent late with the earliest time the device takes).
        fixture g;
        g.log.ended(3500);
        g.log.started(3500, t0 + 1 * us, t0 + 53500 * us);
        g.log.ended(3600);
        CPPUNIT_ASSERT(
            g.take(rec(code::tx_time_error, 3500, t0 + 53500 * us, t0 + 54000 * us), e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), e.count);
        CPPUNIT_ASSERT_EQUAL(t0 + 1 * us, e.time_ns);
        // At STOP a burst still without END drops what the device was given of it.
        fixture h;
        CPPUNIT_ASSERT(
            !h.take(rec(code::tx_time_error, 3000, t0 + 50000 * us, t0 + 51000 * us), e));
        CPPUNIT_ASSERT(h.rep.release(h.log, true, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), e.count);
    }

    void test_a_burst_is_dropped_once_and_in_order()
    {
        // fuzz_tx_records found it (issue 31): the same tx_time_error six times made
        // the host believe 6 x 2000 items dropped, of the 5000 it published.
        fixture f;
        tx_event e;
        const meta::record dropped =
            rec(code::tx_time_error, 1000, t0 + 20000 * us, t0 + 20500 * us);
        CPPUNIT_ASSERT(f.take(dropped, e)); // its END is known: reported at once
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), e.count);
        for (int i = 0; i < 5; i++)
            CPPUNIT_ASSERT(!f.take(dropped, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), f.rep.rejected());
        // A later one still counts, once.
        CPPUNIT_ASSERT(
            !f.take(rec(code::tx_time_error, 3000, t0 + 50000 * us, t0 + 51000 * us), e));
        CPPUNIT_ASSERT(f.rep.release(f.log, true, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), e.count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.rep.accepted());
        // Nor an earlier burst after a later one: the device takes its STARTs up in
        // order.
        fixture g;
        CPPUNIT_ASSERT(
            !g.take(rec(code::tx_time_error, 3000, t0 + 50000 * us, t0 + 51000 * us), e));
        CPPUNIT_ASSERT(!g.take(dropped, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), g.rep.rejected());
    }

    void test_lost_records_are_reported_once_per_kind_at_the_end()
    {
        // The device's records of a run, of which some never arrived: the reports,
        // with the reconciliation, add up to the final counters exactly.
        fixture f;
        f.log.ended(4000);
        f.log.started(4000, 0, 0);
        f.log.ended(4500);
        f.log.published(5000);
        const meta::record all[] = {
            rec(code::tx_underflow, 500, t0 + 600 * us, 120),
            rec(code::tx_underflow, 900, t0 + 1100 * us, 70), // lost
            rec(code::tx_late, 256, t0 + 400 * us, 256),
            rec(code::tx_late, 768, t0 + 980 * us, 256), // lost
            rec(code::tx_burst_ack, 1000, t0 + 1500 * us, 744),
            rec(code::tx_time_error, 1000, t0 + 20000 * us, t0 + 20500 * us), // lost
            rec(code::tx_time_error, 3000, t0 + 50000 * us, t0 + 51000 * us),
            rec(code::tx_burst_ack, 4500, t0 + 52000 * us, 500), // lost
        };
        const bool lost[] = { false, true, false, true, false, true, false, true };
        tx_device_counters c;
        c.has_burst_counters = true;
        c.underflow_samples = 190;
        c.late_zero_samples = 512;
        c.dropped_samples = 3000;
        c.time_errors = 2;
        c.bursts_done = 2;
        tx_event e;
        uint64_t underflow = 0, late = 0, dropped = 0, errors = 0, acks = 0;
        auto add = [&](const tx_event& x) {
            if (x.type == tx_event::kind::underflow)
                underflow += x.count;
            if (x.type == tx_event::kind::late)
                late += x.count;
            if (x.type == tx_event::kind::time_error) {
                dropped += x.count;
                errors += x.bursts;
            }
            if (x.type == tx_event::kind::burst_ack)
                acks += x.bursts;
        };
        // As tx_watch does: every report through the gate, out once the counters
        // cover it; at the end the gate settles what the counters say beyond them.
        tx_report_gate gate;
        auto report = [&](const tx_event& x) {
            if (gate.hold(x))
                add(x);
            tx_event y;
            while (gate.release(c, y))
                add(y);
        };
        for (size_t i = 0; i < std::size(all); i++)
            if (!lost[i] && f.take(all[i], e))
                report(e);
        CPPUNIT_ASSERT(!f.rep.complete(c));
        while (f.rep.release(f.log, true, e))
            report(e);
        tx_event rest[4];
        const size_t n = gate.settle(c, rest);
        CPPUNIT_ASSERT_EQUAL(size_t(4), n); // one per kind
        for (size_t i = 0; i < n; i++) {
            CPPUNIT_ASSERT(rest[i].unattributed);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), rest[i].item);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), rest[i].time_ns);
            add(rest[i]);
        }
        CPPUNIT_ASSERT(rest[0].type == tx_event::kind::underflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(70), rest[0].count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), rest[1].count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), rest[2].count); // the burst at 1000
        CPPUNIT_ASSERT_EQUAL(1u, rest[2].bursts);
        CPPUNIT_ASSERT_EQUAL(1u, rest[3].bursts);
        CPPUNIT_ASSERT_EQUAL(c.underflow_samples, underflow);
        CPPUNIT_ASSERT_EQUAL(c.late_zero_samples, late);
        CPPUNIT_ASSERT_EQUAL(c.dropped_samples, dropped);
        CPPUNIT_ASSERT_EQUAL(c.time_errors, errors);
        CPPUNIT_ASSERT_EQUAL(c.bursts_done, acks);
        // Nothing is reported twice.
        CPPUNIT_ASSERT_EQUAL(size_t(0), gate.settle(c, rest));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), gate.excess());
        // Every record arrived: nothing left to report.
        fixture g;
        tx_report_gate g_gate;
        tx_device_counters d;
        d.underflow_samples = 190;
        for (const meta::record& r : { all[0], all[1] }) {
            CPPUNIT_ASSERT(g.take(r, e));
            CPPUNIT_ASSERT(!g_gate.hold(e));
        }
        CPPUNIT_ASSERT(g.rep.complete(d));
        while (g_gate.release(d, e))
            ;
        CPPUNIT_ASSERT_EQUAL(size_t(0), g_gate.settle(d, rest));
    }

    void test_records_beyond_the_counters_are_not_reported_again()
    {
        // Plausible records claiming more than the device counted (forged, sent from
        // the device's metadata port): a report goes out only once the counters cover
        // it, so none ever exceeds them; what they never cover is dropped and counted.
        fixture f;
        tx_event e;
        tx_report_gate gate;
        CPPUNIT_ASSERT(f.take(rec(code::tx_underflow, 5000, t0 + 60000 * us, 500), e));
        CPPUNIT_ASSERT(!gate.hold(e));
        tx_device_counters c;
        c.underflow_samples = 300;
        CPPUNIT_ASSERT(!gate.release(c, e)); // 500 > 300: held
        // A genuine late report behind it is not held back by it (another kind).
        CPPUNIT_ASSERT(f.take(rec(code::tx_late, 1200, t0 + 20200 * us, 256), e));
        CPPUNIT_ASSERT(!gate.hold(e));
        c.late_zero_samples = 256;
        CPPUNIT_ASSERT(gate.release(c, e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::late);
        CPPUNIT_ASSERT(!gate.release(c, e));
        // The end: the 300 the counter says are reported unattributed, the forged 500
        // never; the reports add up to the counters.
        tx_event rest[4];
        CPPUNIT_ASSERT_EQUAL(size_t(1), gate.settle(c, rest));
        CPPUNIT_ASSERT(rest[0].type == tx_event::kind::underflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), rest[0].count);
        CPPUNIT_ASSERT(rest[0].unattributed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), gate.excess());
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), gate.released().underflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), gate.released().late);
    }

    void test_a_flood_of_one_kind_pushes_out_only_its_own_kind()
    {
        // A genuine late report waits for its counter; then the gate fills with forged
        // underflow reports (plausible, never covered). Once the oldest held report
        // went, whatever its kind: the genuine one was lost to the flood.
        tx_report_gate gate;
        tx_event late;
        late.type = tx_event::kind::late;
        late.count = 256;
        CPPUNIT_ASSERT(!gate.hold(late));
        tx_event forged;
        forged.type = tx_event::kind::underflow;
        forged.count = 10;
        for (size_t i = 0; i < 3 * tx_report_gate::capacity; i++)
            CPPUNIT_ASSERT(!gate.hold(forged));
        CPPUNIT_ASSERT_EQUAL(tx_report_gate::capacity, gate.held());
        // The flood pushed out its own kind only: the late report is still there.
        tx_device_counters c;
        c.late_zero_samples = 256;
        tx_event e;
        CPPUNIT_ASSERT(gate.release(c, e));
        CPPUNIT_ASSERT(e.type == tx_event::kind::late);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), e.count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10 * (2 * tx_report_gate::capacity + 1)),
                             gate.excess());
        // A late report coming to a gate full of another kind is the one dropped.
        CPPUNIT_ASSERT(!gate.hold(forged)); // full again
        CPPUNIT_ASSERT(!gate.hold(late));
        CPPUNIT_ASSERT(!gate.release(c, e) || e.type != tx_event::kind::late);
        // The device lost: no final counters; what is held never goes out, counted.
        const uint64_t before = gate.excess();
        gate.abandon();
        CPPUNIT_ASSERT_EQUAL(size_t(0), gate.held());
        CPPUNIT_ASSERT_EQUAL(before + 10 * tx_report_gate::capacity, gate.excess());
    }

    void test_a_covered_report_goes_once_the_counters_show_it()
    {
        // A genuine record comes before the counter reading that covers it: held a
        // beat, then out, in order within its kind.
        fixture f;
        tx_event e;
        tx_report_gate gate;
        tx_device_counters c; // a reading from before the underflows
        CPPUNIT_ASSERT(f.take(rec(code::tx_underflow, 5000, t0 + 60000 * us, 100), e));
        CPPUNIT_ASSERT(!gate.hold(e));
        CPPUNIT_ASSERT(f.take(rec(code::tx_underflow, 5000, t0 + 70000 * us, 50), e));
        CPPUNIT_ASSERT(!gate.hold(e));
        CPPUNIT_ASSERT(!gate.release(c, e));
        c.underflow_samples = 120; // the next reading: the first, not the second
        CPPUNIT_ASSERT(gate.release(c, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), e.count);
        CPPUNIT_ASSERT_EQUAL(t0 + 60000 * us, e.time_ns);
        CPPUNIT_ASSERT(!gate.release(c, e));
        c.underflow_samples = 150;
        CPPUNIT_ASSERT(gate.release(c, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), e.count);
        CPPUNIT_ASSERT_EQUAL(size_t(0), gate.held());
        // Kinds without a counter pass at once.
        CPPUNIT_ASSERT(f.take(rec(code::tx_lead, 900, t0 + 900 * us, 3000000), e));
        CPPUNIT_ASSERT(gate.hold(e));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_record_reports);
