/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's side of queued TX bursts against the device's own rules and records:
// tx_burst_plan's mirror of the push check against the emulator's queue, and
// tx_record_reports on the TX records of a real run (timed, open, underflowing, late,
// dropped bursts), all of them and with records lost: the reports add up to the
// device's counters exactly.

#include "../emu/tx_burst_schedule.h"
#include "../stream/tx_burst_log.h"
#include "../stream/tx_burst_plan.h"
#include "../stream/tx_record_reports.h"
#include "../stream/tx_report_gate.h"
#include "qa_tx_burst_scene.h"
#include "qa_tx_host.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <random>

using namespace gr::rdma;
using namespace gr::rdma::qa;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t item_ns = 4000; // tx_run_setup's 250 kS/s

struct sums {
    uint64_t underflow = 0, late = 0, dropped = 0, time_errors = 0, acks = 0;
    size_t unattributed = 0;
    void add(const tx_event& e)
    {
        if (e.unattributed)
            unattributed++;
        switch (e.type) {
        case tx_event::kind::underflow:
            underflow += e.count;
            break;
        case tx_event::kind::late:
            late += e.count;
            break;
        case tx_event::kind::time_error:
            dropped += e.count;
            time_errors += e.bursts;
            break;
        case tx_event::kind::burst_ack:
            acks += e.bursts;
            break;
        default:
            break;
        }
    }
};

} // namespace

class qa_tx_records : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_records);
    CPPUNIT_TEST(test_plan_mirrors_the_devices_push_check);
    CPPUNIT_TEST(test_reports_add_up_to_the_counters_with_records_lost);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_plan_mirrors_the_devices_push_check()
    {
        // Random bursts at random rates: a START the plan calls late is one the device
        // refuses (time_behind), the time the plan sends instead is one it takes, and
        // every other START it takes.
        std::mt19937_64 rng(12);
        const rational rates[] = {
            { 1000000, 1 }, { 250000, 1 }, { 30720000, 1 }, { 44100, 1 }, { 1234567, 10 }
        };
        const uint64_t t0 = 1700000000123456789ull;
        unsigned late = 0, taken = 0;
        for (const rational& rate : rates) {
            emu::tx_entry_queue q;
            q.open(t0, rate.num, rate.den);
            tx_burst_plan p;
            p.reset();
            p.run_started(t0, rate);
            uint64_t item = 0;
            for (int b = 0; b < 200; b++) {
                const uint64_t earliest = p.earliest_ns();
                uint64_t t = 0;
                switch (rng() % 5) {
                case 0:
                    break; // as soon as possible
                case 1:
                    t = earliest - 1 - rng() % 3;
                    break;
                case 2:
                    t = earliest + rng() % 3;
                    break;
                default:
                    t = earliest - 500000 + rng() % 1000000;
                }
                p.begin(item, t);
                p.committing(item);
                const tx_burst_plan::decision d = p.resolve(UINT64_MAX / 2, 0);
                const uint32_t asked = q.push({ regs::tbq::op::start, item, t });
                CPPUNIT_ASSERT_EQUAL(d.late ? regs::tbq::error::time_behind
                                            : regs::tbq::error::none,
                                     asked);
                if (d.late) {
                    CPPUNIT_ASSERT_EQUAL(
                        regs::tbq::error::none,
                        q.push({ regs::tbq::op::start, item, d.time_ns }));
                    late++;
                } else {
                    taken++;
                }
                p.pushed(d.time_ns);
                q.pop();
                item += 1 + rng() % 5000;
                p.end(item);
                CPPUNIT_ASSERT_EQUAL(regs::tbq::error::none,
                                     q.push({ regs::tbq::op::end, item, 0 }));
                p.pushed(0);
                q.pop();
            }
        }
        CPPUNIT_ASSERT(late > 100 && taken > 100);
    }

    void test_reports_add_up_to_the_counters_with_records_lost()
    {
        // Lost READ RESPONSEs and a lead too short to read them again (late pieces,
        // re-reads), a timed burst, an open one the host stops feeding (underflow), a
        // START whose time passed (dropped), one more: every record of the run.
        tx_run_setup s;
        s.samples = regs::tbq::queued_mode;
        s.loss_ppm = 200000;
        s.min_lead_ns = 200000;
        s.max_lead_ns = 300000;
        tx_burst_scene sc(s);
        tx_burst_log log;
        const uint64_t t0 = sc.start();
        auto start = [&](uint64_t item, uint64_t t) {
            sc.push(true, item, t);
            log.started(item, t, t);
        };
        auto end = [&](uint64_t item) {
            sc.push(false, item);
            log.ended(item);
        };
        const uint64_t timed = t0 + 20000000;
        start(0, timed);
        end(4096);
        sc.host.limit(4096);
        start(4096, 0);
        sc.host.limit(6144);
        CPPUNIT_ASSERT(wait_for([&] {
            return read_counters(sc.axi).underflow_samples > 30000000 / item_ns;
        }));
        sc.host.limit(12288);
        end(12288);
        // After the burst before, as the entries tell, but passed when taken up.
        const uint64_t earliest = timed + 12288 * item_ns;
        CPPUNIT_ASSERT(
            wait_for([&] { return sc.ctl.device_time_ns() > earliest + 5000000; }));
        start(12288, earliest);
        end(13288);
        start(13288, 0);
        end(17384);
        sc.host.limit(17384);
        // (Should it not come, the counters say which burst is missing.)
        const bool three_done =
            wait_for([&] { return read_counters(sc.axi).bursts_done == 3; });
        CPPUNIT_ASSERT_MESSAGE(describe(read_counters(sc.axi)), three_done);
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        const std::vector<meta::record> all = sc.records(); // none lost on the way
        CPPUNIT_ASSERT_MESSAGE(describe(c), c.late_zero_samples > 0);
        CPPUNIT_ASSERT(c.underflow_samples > 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.dropped_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.time_errors);
        log.published(sc.host.committed());
        const uint64_t now = sc.ctl.device_time_ns();

        tx_device_counters final;
        static_cast<regs::tx_counters&>(final) = c;
        final.has_burst_counters = true;
        // Every second record lost, then every record: the sums are the counters'.
        for (const size_t keep_every : { size_t(2), size_t(1) }) {
            tx_record_reports rep;
            tx_record_reports::run r;
            r.t0_ns = t0;
            r.rate = { s.rate, 1 };
            r.min_lead_ns = s.min_lead_ns;
            r.max_lead_ns = s.max_lead_ns;
            rep.start(r);
            sums got;
            size_t seq_errors = 0;
            tx_event e;
            // As tx_watch: each report out once the counters cover it (the final
            // ones here, which cover every genuine record), the rest settled.
            tx_report_gate gate;
            auto report = [&](const tx_event& x) {
                if (gate.hold(x))
                    got.add(x);
                tx_event y;
                while (gate.release(final, y))
                    got.add(y);
            };
            for (size_t i = 0; i < all.size(); i++) {
                if (i % keep_every)
                    continue;
                if (rep.take(all[i], now, log, e)) {
                    report(e);
                    seq_errors += e.type == tx_event::kind::seq_error;
                }
            }
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), rep.rejected()); // all of them believed
            while (rep.release(log, true, e))
                report(e);
            CPPUNIT_ASSERT_EQUAL(keep_every == 1, rep.complete(final));
            CPPUNIT_ASSERT_EQUAL(size_t(0), gate.held());
            tx_event rest[4];
            const size_t n = gate.settle(final, rest);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), gate.excess());
            for (size_t i = 0; i < n; i++)
                got.add(rest[i]);
            CPPUNIT_ASSERT_EQUAL(c.underflow_samples, got.underflow);
            CPPUNIT_ASSERT_EQUAL(c.late_zero_samples, got.late);
            CPPUNIT_ASSERT_EQUAL(c.dropped_samples, got.dropped);
            CPPUNIT_ASSERT_EQUAL(c.time_errors, got.time_errors);
            CPPUNIT_ASSERT_EQUAL(c.bursts_done, got.acks);
            if (keep_every == 1) {
                CPPUNIT_ASSERT_EQUAL(size_t(0), got.unattributed);
                CPPUNIT_ASSERT(seq_errors > 0);
            } else {
                CPPUNIT_ASSERT(got.unattributed > 0 && got.unattributed == n);
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_records);
